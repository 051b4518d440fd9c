package verdict

import (
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// TestReportsNameTheProfile: every report of a core run says so, and an
// apex run's reports read as before profiles existed, the JSON header and
// JUnit property aside.
func TestReportsNameTheProfile(t *testing.T) {
	for _, p := range []suite.Profile{"", suite.Apex, suite.Core} {
		rep := sample()
		rep.Profile = p
		var js, xml, md strings.Builder
		if err := rep.WriteJSONLines(&js); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteJUnit(&xml); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteMarkdown(&md); err != nil {
			t.Fatal(err)
		}
		want := string(p.OrDefault())
		for what, got := range map[string]bool{
			"JSON header":    strings.Contains(js.String(), `"profile":"`+want+`"`),
			"JUnit property": strings.Contains(xml.String(), `<property name="profile" value="`+want+`">`),
			"Markdown title": strings.Contains(md.String(), "(profile "+want+")"),
			"badge label":    (rep.Badge().Label == "apexcheck 9.9.9 core") == (p == suite.Core),
			"reproduce flag": strings.Contains(rep.Reproduce(rep.Results[1].Scenario), "--profile core") == (p == suite.Core),
			"certificate":    Certify(rep, nil, nil, rep.Started).Profile == p.OrDefault(),
		} {
			if !got {
				t.Errorf("profile %q: %s does not name it", p, what)
			}
		}
	}
}
