import HearthRuntime

let host = ServiceHost.bootstrap(service: "notifier", defaultPort: 8085, owner: .notifier)
let notifier = NotifierAssembly.make(host: host)
await host.run(extraServices: notifier.services)
