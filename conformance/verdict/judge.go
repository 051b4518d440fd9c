package verdict

import "github.com/apexcheck/apexcheck/conformance/suite"

// Judgement is what a finished run or merge comes to.
type Judgement struct {
	// Ledger is the expectation ledger's verdict on the results; without a
	// ledger every failed or errored scenario is unexpected.
	Ledger Verdict
	// Conformant says whether the run conforms: the command exits 0 when
	// it does (and nothing else went wrong), 1 when it does not, unless
	// Inconclusive.
	Conformant bool
	// Inconclusive says that the run decides neither way: nothing makes it
	// non-conformant, but a scenario that counts stayed inconclusive (the
	// machine, not the implementation, missed a time bound in every
	// attempt). Conformant is then false, and the command exits 3: rerun
	// on a quieter machine.
	Inconclusive bool
}

// Judge decides whether a run, or the merge of a sharded run, conforms.
// With a ledger, the ledger decides: an implementation with known
// failures is tracked, not certified, and the run conforms when it
// differs from the ledger nowhere. Without one, a certificate decides when
// the run was certified (cert not nil): a failed SHOULD scenario does not
// deny it, a skipped MUST scenario does; a shard's certificate
// ([Certificate.Shard]) by its denials alone. Without either, any failed or
// errored scenario makes the run non-conformant.
//
// An inconclusive scenario is never a pass nor a failure: where the run
// would otherwise conform, one that counts (any, or with a certificate a
// MUST scenario) makes the judgement Inconclusive instead.
func Judge(rep *Report, ledger *Ledger, cert *Certificate) Judgement {
	j := Judgement{Ledger: ledger.Evaluate(rep.Results)}
	j.Conformant = j.Ledger.OK()
	inconclusive := suite.Count(rep.Results).Inconclusive > 0
	switch {
	case ledger != nil || cert == nil:
	case cert.Shard != "":
		j.Conformant = len(cert.Denied) == 0
		inconclusive = len(cert.Inconclusive) > 0
	default:
		j.Conformant = cert.Certified
		inconclusive = cert.Withheld()
	}
	if inconclusive && (j.Conformant || cert != nil && cert.Withheld()) {
		j.Conformant, j.Inconclusive = false, true
	}
	return j
}
