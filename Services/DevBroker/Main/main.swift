import DevBrokerService

DevBrokerCommand.main()
