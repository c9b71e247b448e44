import NotifierService

await NotifierExecutable.run()
