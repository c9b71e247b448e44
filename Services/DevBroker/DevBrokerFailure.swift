/// A startup problem, reported on stderr before exiting with status 1.
struct DevBrokerFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
