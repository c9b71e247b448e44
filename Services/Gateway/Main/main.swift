import GatewayService

await GatewayExecutable.run()
