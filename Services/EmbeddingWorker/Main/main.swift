import EmbeddingWorkerService

await EmbeddingWorkerExecutable.run()
