package tool

import "strings"

// SessionVariables are the variables the tool owns: removed from the host
// environment of every shell, then set from the session context (EXEC-22,
// EXEC-23).
var SessionVariables = []string{
	"APEX_CODE_SESSION_ID",
	"APEX_CODE_SESSION_FILE",
	"APEX_CODE_PROVIDER",
	"APEX_CODE_MODEL",
	"APEX_CODE_REASONING_LEVEL",
}

// legacyName is the pi-era name apex-code mirrors each session variable
// to: setApexEnvironment sets and deletes both names together (EXEC-24,
// upstream core/environment.ts).
func legacyName(name string) string {
	return "PI_" + strings.TrimPrefix(name, "APEX_CODE_")
}

// spawnEnv builds a shell's environment: the host environment without the
// session variables, PATH replaced by the login PATH when the probe
// succeeded, then the session variables the context supplies.
func (t *Tool) spawnEnv(c Call) []string {
	env := make([]string, 0, len(t.hostEnv)+len(SessionVariables))
	for _, kv := range t.hostEnv {
		name, _, _ := strings.Cut(kv, "=")
		if !isSessionVariable(name) {
			env = append(env, kv)
		}
	}
	if t.cfg.LoginPATH != nil {
		// PATH-16, PATH-17: the first run call probes here, before any of
		// its checks; PATH-20: the login PATH replaces the host's, once;
		// PATH-15: a failure leaves the host PATH.
		if path, ok := t.cfg.LoginPATH(); ok {
			env = setEnv(env, "PATH", path)
		}
	}
	expose := c.Options.ExposeSessionEnvironment == nil || *c.Options.ExposeSessionEnvironment
	if s := c.Session; expose && s != nil {
		set := func(name, value string) {
			env = append(env, name+"="+value, legacyName(name)+"="+value)
		}
		set("APEX_CODE_SESSION_ID", s.ID)
		if s.File != "" {
			set("APEX_CODE_SESSION_FILE", s.File)
		}
		if s.Model != "" {
			set("APEX_CODE_PROVIDER", s.Provider)
			set("APEX_CODE_MODEL", s.Model)
		}
		if s.ReasoningLevel != "" {
			set("APEX_CODE_REASONING_LEVEL", s.ReasoningLevel)
		}
	}
	return env
}

// isSessionVariable reports whether name is a session variable under its
// canonical or its legacy name.
func isSessionVariable(name string) bool {
	for _, v := range SessionVariables {
		if name == v || name == legacyName(v) {
			return true
		}
	}
	return false
}

func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
