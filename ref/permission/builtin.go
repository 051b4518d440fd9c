package permission

import "strings"

// evaluatesInput are the builtins PERM-44 refuses whatever their arguments:
// each assigns text that is not one of its arguments (standard input, the
// value of `$_` or of another variable) to a variable the command names, or
// runs code given as an argument. Assigning to an integer variable such as
// OPTIND evaluates the text as arithmetic, and an array subscript in that
// arithmetic runs a `$(…)` that was written inside single quotes, possibly
// by an earlier segment: `printf 'a[$(id)]\n' | read OPTIND`,
// `echo 'a[$(id)]'; getopts _ OPTIND -_`, `mapfile -C id -c 1 a`,
// `compgen -W '$(id)' x`.
var evaluatesInput = map[string]bool{
	"read": true, "mapfile": true, "readarray": true, "getopts": true, "compgen": true,
}

// evaluatesSubscript are the builtins PERM-44 refuses when an argument
// contains `[`: each takes variable names, and evaluates the subscript of a
// name written `a[…]` (`test -v 'a[$(id)]'`, `unset 'GROUPS[$(id)]'`,
// `wait -p 'a[$(id)]'`). A name without `[` evaluates nothing: they assign
// no text (wait -p assigns a process id). `[` itself never gets here: as a
// command word it is an unquoted bracket (PERM-29).
var evaluatesSubscript = map[string]bool{
	"test": true, "[": true, "unset": true, "wait": true,
}

// changesLookup are the builtins PERM-45 refuses: each changes what a later
// segment's command word runs (an alias under `set -o posix` or
// `shopt -s expand_aliases`, a hashed path, a loaded or disabled builtin),
// which PERM-32's "each segment starts with the word bash runs" forbids.
var changesLookup = map[string]bool{
	"alias": true, "hash": true, "enable": true,
}

// builtin applies PERM-26, PERM-44 and PERM-45 to the builtin a simple
// command runs, found by PERM-46: the command word, or for `builtin` and
// `command` the first word after their options. The words have passed
// PERM-28 and PERM-29 already, so their values are their text with quotes
// removed.
func (s *segmenter) builtin(name string, args []rawWord) bool {
	for name == "builtin" || name == "command" {
		i := 0
		for i < len(args) && startsWithDash(args[i].text) {
			i++ // options, `--` included: bash takes the next word as the command
		}
		if i == len(args) {
			return true // `command -v` alone, `builtin`: nothing runs
		}
		lit, ok := plainLit(args[i].text)
		if !ok {
			// PERM-46 with PERM-27: `command 'printf' -v …` hides the
			// builtin's name from this check as a quoted command word would.
			return s.reject(ReasonCommandWord, "a quoted or escaped word after "+name)
		}
		name, args = lit, args[i+1:]
	}
	switch {
	case declarationBuiltins[name]:
		return s.reject(ReasonDeclaration, name)
	case evaluatesInput[name]:
		return s.reject(ReasonEvaluation, name)
	case name == "printf" && len(args) > 0 && strings.HasPrefix(wordValue(args[0].text), "-"):
		// `printf -v NAME`: the one printf option; it assigns the output
		// to NAME, a subscript or an integer variable.
		return s.reject(ReasonEvaluation, "printf with an option")
	case evaluatesSubscript[name] && anyContains(args, "["):
		return s.reject(ReasonEvaluation, name+" with a subscript")
	case changesLookup[name]:
		return s.reject(ReasonLookup, name)
	}
	return true
}

// startsWithDash reports whether a word starts with an unquoted `-`, which
// is how `builtin` and `command` recognise their options (PERM-46).
func startsWithDash(word string) bool {
	return word[0] == '-'
}

// plainLit returns a word's text when it is one unquoted literal with no
// backslash (no quote, then, either): the form PERM-27 requires of a
// command word.
func plainLit(word string) (string, bool) {
	// A loop, not strings.ContainsAny: it runs several times for each
	// word of a chain of wrappers, most of them a few bytes long, where
	// ContainsAny looks every byte up in the set.
	for i := 0; i < len(word); i++ {
		if b := word[i]; b == '\'' || b == '"' || b == '\\' {
			return "", false
		}
	}
	return word, true
}

// anyContains reports whether the text of some word contains sub. Quote
// removal never adds or removes a `[`, so the source text and the value
// agree.
func anyContains(words []rawWord, sub string) bool {
	for _, w := range words {
		if strings.Contains(w.text, sub) {
			return true
		}
	}
	return false
}

// wordValue is bash's quote removal for the source text of a word PERM-28
// has already admitted, so one of literal text, single quotes and double
// quotes holding literal text only. Unquoted, a backslash quotes the
// character after it; inside double quotes it does so only before `$`, a
// backtick, `"`, `\` and a newline. (Backslash-newline never gets here:
// PERM-20.) A backslash before a multi-byte character quotes the whole
// character; removing it leaves the character intact.
func wordValue(word string) string {
	if v, ok := plainLit(word); ok {
		return v // the common case, an option or a name: nothing to remove
	}
	var b strings.Builder
	b.Grow(len(word))
	for i := 0; i < len(word); i++ {
		switch word[i] {
		case '\'':
			j := i + 1 + strings.IndexByte(word[i+1:], '\'')
			b.WriteString(word[i+1 : j])
			i = j
		case '"':
			for i++; word[i] != '"'; i++ {
				if word[i] == '\\' && strings.IndexByte("$`\"\\\n", word[i+1]) >= 0 {
					i++
				}
				b.WriteByte(word[i])
			}
		case '\\':
			if i+1 < len(word) {
				i++
			}
			b.WriteByte(word[i])
		default:
			b.WriteByte(word[i])
		}
	}
	return b.String()
}
