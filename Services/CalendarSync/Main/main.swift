import CalendarSyncService

await CalendarSyncExecutable.run()
