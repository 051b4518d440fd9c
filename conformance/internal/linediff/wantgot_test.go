package linediff

import "testing"

func TestWantGot(t *testing.T) {
	const diffStdoutWant = "diff stdout want\n--- stdout\n+++ want\n@@ -1,3 +1,3 @@\n a\n-got line\n+want line\n c\nFAIL: x.txtar:3: stdout and want differ\n"
	tests := []struct {
		name, log, want string
	}{
		{"a file named want",
			"> call '{}'\n" + diffStdoutWant,
			"> call '{}'\ndiff want stdout\n--- want (want)\n+++ stdout (got)\n@@ -1,3 +1,3 @@\n a\n-want line\n+got line\n c\nFAIL: x.txtar:3: stdout and want differ\n"},
		{"a file named got, stdout computed by exec",
			"> exec sh -c 'printf x'\n> cmp stdout got\ndiff stdout got\n--- stdout\n+++ got\n@@ -1,1 +1,1 @@\n-x\n+y\n",
			"> exec sh -c 'printf x'\n> cmp stdout got\ndiff stdout got\n--- stdout (want)\n+++ got (got)\n@@ -1,1 +1,1 @@\n-x\n+y\n"},
		{"stdout of exec against another file",
			"> exec seq 3\n> cmp stdout $FULL\ndiff stdout $FULL\n--- stdout\n+++ $FULL\n@@ -1,1 +1,1 @@\n-x\n+y\n",
			"> exec seq 3\n> cmp stdout $FULL\ndiff stdout $FULL\n--- stdout (want)\n+++ $FULL (got)\n@@ -1,1 +1,1 @@\n-x\n+y\n"},
		{"stdout of a call against a file of the archive, uneven hunk",
			"> call '{}'\n> stdout x\n> cmp stdout dots.txt\ndiff stdout dots.txt\n--- stdout\n+++ dots.txt\n@@ -1,1 +1,2 @@\n-x\n+y\n+z\n",
			"> call '{}'\n> stdout x\n> cmp stdout dots.txt\ndiff dots.txt stdout\n--- dots.txt (want)\n+++ stdout (got)\n@@ -1,2 +1,1 @@\n-y\n-z\n+x\n"},
		{"not a cmp diff", "diff is a word here\n--- stdout\n", "diff is a word here\n--- stdout\n"},
		{"already -want +got", "text differs (-want +got):\n@@ -1,1 +1,1 @@\n-a\n+b\n", "text differs (-want +got):\n@@ -1,1 +1,1 @@\n-a\n+b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WantGot(tt.log); got != tt.want {
				t.Errorf("WantGot:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
