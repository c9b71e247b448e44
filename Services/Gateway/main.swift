import HearthReadModels
import HearthRuntime

let host = ServiceHost.bootstrap(service: "gateway", defaultPort: 8080, owner: .gateway)
let api = await GatewayAPI.make(host: host)
await host.run(extraServices: api.services) { router in
    api.register(on: router)
}
