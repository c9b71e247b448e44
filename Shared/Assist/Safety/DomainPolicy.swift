/// The rules of one domain (or of every domain), in file order: the first that fires decides.
struct DomainPolicy: Sendable {
    var contentRules: [ContentRule] = []
    var ageGates: [AgeGate] = []
}
