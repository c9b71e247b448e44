import HearthCtlCommands

await HearthCtl.runFromCommandLine()
