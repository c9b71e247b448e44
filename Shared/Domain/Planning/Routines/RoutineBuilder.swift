/// Gives each child the morning and bedtime routine of their age band, exactly as the band
/// lists it: steps written for an older band are never mixed in, so a baby is never asked
/// to set an alarm or pack a bag.
public struct RoutineBuilder: Sendable {
    public let catalogue: RoutineCatalogue

    public init(catalogue: RoutineCatalogue) {
        self.catalogue = catalogue
    }

    public static func bundled() throws -> RoutineBuilder {
        RoutineBuilder(catalogue: try RoutineCatalogue.bundled())
    }

    public func build(children: [HouseholdMember]) -> RoutinePlan {
        var routines: [ChildRoutine] = []
        var without: [HouseholdMember] = []
        for child in children {
            guard !child.isAdult, let band = catalogue.band(forAge: child.age) else {
                without.append(child)
                continue
            }
            for kind in RoutineKind.allCases {
                routines.append(ChildRoutine(
                    name: kind.routineName, kind: kind, child: child.name, age: child.age,
                    band: band.label, steps: band.steps(for: kind)))
            }
        }
        return RoutinePlan(routines: routines, withoutRoutine: without)
    }

    /// For households that record only their children's ages: "Child 1", "Child 2", ….
    public func build(childAges: [Int]) -> RoutinePlan {
        build(children: childAges.enumerated().map { HouseholdMember(name: "Child \($0.offset + 1)", age: $0.element) })
    }
}
