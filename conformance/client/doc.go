// Package client drives one implementation of the bash tool over the
// JSON-lines protocol: [Start] starts it in a session of its own and
// performs the handshake, a [Client] sends requests and collects their
// updates and responses ([Pending]), and every breach of the protocol by
// the implementation wraps [ErrBroken].
//
// A [Tracker], owned by the caller, records what a run has started (its
// implementations, the markers in their environments, its temporary
// directories) so that [Tracker.Interrupt] can end all of it when the run
// is stopped by a signal. [Survivors] and [Reap] find and kill the
// processes an implementation left behind, by their [MarkerVariable].
package client
