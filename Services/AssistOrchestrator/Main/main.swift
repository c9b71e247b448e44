import AssistOrchestratorService

await AssistOrchestratorExecutable.run()
