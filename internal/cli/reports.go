package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/verdict"
)

// reportFlags are the flags that a run and a merge share: what to print,
// which reports to write, the ledger to check against, and certification.
type reportFlags struct {
	verbose   bool
	jsonFile  string
	junitFile string
	mdFile    string
	badgeFile string
	expect    string
	certify   bool
	certFile  string
}

// reportUsage is what a command's report flags say they do where a run
// and a merge differ.
type reportUsage struct {
	json, expect, certify string
}

func (f *reportFlags) register(fs *flag.FlagSet, u reportUsage) {
	fs.BoolVar(&f.verbose, "v", false, "print every scenario's outcome")
	fs.StringVar(&f.jsonFile, "json", "", u.json)
	fs.StringVar(&f.junitFile, "junit", "", "write a JUnit XML report to `FILE`")
	fs.StringVar(&f.mdFile, "markdown", "", "write a Markdown summary to `FILE` (for $GITHUB_STEP_SUMMARY)")
	fs.StringVar(&f.badgeFile, "badge", "", "write a shields.io endpoint badge to `FILE`")
	fs.StringVar(&f.expect, "expect", "", u.expect)
	fs.BoolVar(&f.certify, "certify", false, u.certify)
	fs.StringVar(&f.certFile, "certificate", "", "with --certify, also write the certificate to `FILE` (JSON when it ends in .json)")
}

// exitCode is the exit status of a run or merge that went as far as
// judging: usage when a report, draft or certificate could not be written,
// else what the judgement says.
func exitCode(j verdict.Judgement, usageErr bool) int {
	switch {
	case usageErr:
		return ExitUsage
	case j.Inconclusive:
		return ExitInconclusive
	case !j.Conformant:
		return ExitNotConformant
	}
	return ExitConformant
}

// writeReports writes every report the flags ask for, and the GitHub
// annotations when running in GitHub Actions.
func writeReports(rep *verdict.Report, f *reportFlags, stdout io.Writer) error {
	var errs []error
	for _, out := range []struct {
		file  string
		write func(io.Writer) error
	}{
		{f.jsonFile, rep.WriteJSONLines},
		{f.junitFile, rep.WriteJUnit},
		{f.mdFile, rep.WriteMarkdown},
		{f.badgeFile, rep.WriteBadge},
	} {
		if out.file != "" {
			errs = append(errs, writeFile(out.file, out.write))
		}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		// Workflow commands are read from stdout.
		errs = append(errs, rep.WriteAnnotations(stdout))
	}
	return errors.Join(errs...)
}

// writeFile writes a file through write, creating its directory.
func writeFile(name string, write func(io.Writer) error) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	out, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := write(out); err != nil {
		out.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// writeCertificate writes a certificate as text, or as JSON when the file
// name ends in .json.
func writeCertificate(file string, cert verdict.Certificate) error {
	return writeFile(file, func(w io.Writer) error {
		if strings.HasSuffix(file, ".json") {
			return cert.WriteJSON(w)
		}
		return cert.WriteText(w)
	})
}
