// Package permission is the reference implementation of the bash tool's
// permission grammar (spec/permissions.md): the segmenter that decides which
// simple commands a command string runs, the rule matcher, the tool's
// permission functions over the one parsed call (package call), and the rule
// engine of apex-code's ADR 0004.
//
// The security property everything here serves is soundness: a command is
// authorised by an allow rule only when the segmenter has proved which simple
// commands bash will run, and every one of them matches. Whatever the
// segmenter cannot prove is unknown, and an unknown call is never authorised
// by an allow rule and is caught by every deny rule (PERM-39). Deny rules
// also see the programs segments run behind wrappers such as env, nohup and
// timeout (PERM-47, PERM-48, wrapper.go); programs that run text as
// commands (sh -c, eval, xargs, find -exec) are unknown (PERM-49).
package permission
