import Testing

/// The tests that start services. Each runs on a database and a devbroker of its own
/// (`OwnStack`), so they run side by side, a few at a time.
@Suite(.ownStack) struct BackboneSuite {}
