import HearthReadModels
import HearthRuntime

let host = ServiceHost.bootstrap(service: "gateway", defaultPort: 8080, owner: .gateway)
let households = HouseholdRoutes(
    publisher: host.publisher,
    readModel: HouseholdReadModel(client: host.postgres, logger: host.logger),
    consistency: ConsistencyWaiter(client: host.postgres, logger: host.logger))
try await host.run { router in
    households.register(on: router)
}
