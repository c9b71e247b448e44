import Testing

/// Every test that starts a gateway shares the `households` consumer group and read model, so
/// they run one after another.
@Suite(.serialized) struct BackboneSuite {}
