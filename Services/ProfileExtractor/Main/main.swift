import ProfileExtractorService

await ProfileExtractorExecutable.run()
