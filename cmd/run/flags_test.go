package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

// flagProbes are fed to every flag (attack round 2, "no zero means
// default"): zero, a negative, the non-finite and the huge, and a string
// with a newline.
var flagProbes = []string{"0", "-1", "NaN", "+Inf", "1e308", "a\nb"}

// Documented meanings of the probes a flag accepts. Every probe of a flag
// that is not listed must be refused with an error naming the flag.
var (
	// A path or free text: the five probes without a newline are file
	// names (relative to the working directory) or text; the newline is
	// refused by cli.AfterApply.
	asText = map[string]string{"0": "the text/path 0", "-1": "the text/path -1", "NaN": "the text/path NaN", "+Inf": "the text/path +Inf", "1e308": "the text/path 1e308"}
	// A boolean switch: "0" is false (kong's bool syntax: true/1/yes,
	// false/0/no); everything else is an error.
	asBool = map[string]string{"0": "false"}
	// A Slurm partition or account name (letters, digits, _ . -): the
	// probes without + or a newline are names.
	asSlurmName = map[string]string{"0": "the name 0", "-1": "the name -1", "NaN": "the name NaN", "1e308": "the name 1e308"}
	// A value checked elsewhere as a whole: none of the probes is valid.
	none = map[string]string{}
)

// flagRules holds, for every flag of every `run` command ("command
// --flag"; "--flag" for the global ones), the probes it accepts and their
// meaning. TestFlagProbes fails for a flag that has no entry, so a new
// flag cannot be added without deciding what 0, -1, NaN, ... mean for it.
var flagRules = map[string]map[string]string{
	"--verbose": asBool,
	"--version": asBool,

	"quickstart --out":     asText,
	"quickstart --cache":   asText,
	"quickstart --quick":   asBool,
	"quickstart --workers": none, // 1..4096

	"plan --out":               asText, // read only: counts the runs done there
	"plan --workers":           none,
	"plan --list":              asBool,
	"plan --json":              asBool,
	"plan --rate":              none, // 1e3..1e15
	"plan --remeasure":         asBool,
	"plan --no-share-contexts": asBool,

	"sweep --out":                 asText,
	"sweep --workers":             none,
	"sweep --log-every":           none, // > 0; "0" parses as 0s and is refused
	"sweep --no-plot":             asBool,
	"sweep --rate":                none,
	"sweep --remeasure":           asBool,
	"sweep --no-share-contexts":   asBool,
	"sweep --ignore-memory-check": asBool,

	"plot --metric":    none, // enum
	"plot --over":      none, // enum
	"plot --log-x":     asBool,
	"plot --linear-x":  asBool,
	"plot --log-y":     asBool,
	"plot --title":     asText,
	"plot --width-cm":  none, // 2..100
	"plot --height-cm": none,

	"slurm --out":               asText,
	"slurm --tasks":             none, // 1..1001
	"slurm --parallel":          none, // >= 1
	"slurm --cpus-per-task":     none, // 1..4096
	"slurm --partition":         asSlurmName,
	"slurm --account":           asSlurmName,
	"slurm --time":              none, // Slurm's syntax, > 0; "0" is refused
	"slurm --mem":               none, // Slurm's syntax, > 0; "0" is refused
	"slurm --sbatch":            none, // --option[=value]
	"slurm --submit":            asBool,
	"slurm --rate":              none,
	"slurm --remeasure":         asBool,
	"slurm --no-share-contexts": asBool,

	"task --out":                 asText,
	"task --tasks":               none,
	"task --index":               none, // 0..tasks-1; with --tasks 1 only 0
	"task --workers":             none,
	"task --plan-digest":         none, // 64 hex digits
	"task --ignore-memory-check": asBool,

	"status --all": asBool,

	"reproduce --out":                 asText,
	"reproduce --quick":               asBool,
	"reproduce --scale":               none,   // enum
	"reproduce --workers":             none,   // 1..4096
	"reproduce --mslr":                asText, // a path, checked when a reproduction starts
	"reproduce --only":                none,   // experiment names of the catalogue
	"reproduce --list":                asBool,
	"reproduce --report-only":         asText,
	"reproduce --copy-to":             none, // a Markdown file: FILE.md
	"reproduce --cache":               asText,
	"reproduce --log-every":           none, // > 0
	"reproduce --rate":                none,
	"reproduce --remeasure":           asBool,
	"reproduce --no-share-contexts":   asBool,
	"reproduce --ignore-memory-check": asBool,

	"table --at":       none, // rounds >= 1
	"table --metric":   none,
	"table --over":     none, // enum
	"table --markdown": asBool,
	"table --format":   none, // enum

	"export --csv": none, // false is refused by Validate, which asks for it

	"scaling --title":    asText,
	"scaling --over":     none, // enum
	"scaling --baseline": none, // a registered algorithm, with --over T or eps

	"audit --sweep":               none, // an existing file; none of the probes exists in the test's directory
	"audit --algorithm":           none,
	"audit --eps":                 none, // (0, 100]
	"audit --delta":               none, // (0, 1)
	"audit --B":                   none,
	"audit --M":                   none, // 1..100000
	"audit --T":                   none, // B..10^9
	"audit --alpha":               none, // (0, 0.5)
	"audit --preset":              none, // enum
	"audit --relation":            none,
	"audit --protocol":            none,
	"audit --noise":               none,
	"audit --learner":             none,
	"audit --pair":                none,
	"audit --trials":              none, // 10..1000000
	"audit --seed":                {"0": "seed 0, a seed like any other"},
	"audit --sigma-scale":         none, // (0, 1000]
	"audit --analytic":            none, // 0 or 1, read by a bco audit only (the probes run the linear default, which refuses it)
	"audit --out":                 asText,
	"audit --ignore-memory-check": asBool,
}

// Exceptions to a flag's rule for one probe, where the probe happens to be
// a valid value: "0" is the valid task index of one task.
var flagProbeExceptions = map[string]string{
	"task --index=0": "task 0 of --tasks 1",
}

// TestFlagProbes enumerates every flag of every `run` command from kong's
// own model and feeds it each of flagProbes (as --flag=value, with the
// command's other arguments valid). A probe the rules accept must parse
// and validate (it is not run: its meaning is the documented one); any
// other must fail with an error naming the flag, at parse time or, if it
// parses, when the command runs under a 30 s context deadline; a panic or
// a command still running at the deadline fails the test.
//
// Mutation control (run once): removing the --trials check of
// AuditCmd.Validate makes `audit --trials=0` run the audit with
// federate.Audit's default of 2000 trials (no error) and `--trials=-1`
// fail with "audit: trials -1 (want >= 10)", which does not name the
// flag: this test then fails for both probes.
func TestFlagProbes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // probes that are paths land here
	quietStdout(t)
	sweep := filepath.Join(dir, "sweep.toml")
	os.WriteFile(sweep, []byte(`name = "probe"
seeds = 1
[[instance]]
kind = "synthetic"
d = 2
k = 3
[[algorithm]]
name = "fedlinucb"
[grid]
M = [1]
B = [1]
T = [2]
`), 0o644)
	results := filepath.Join(dir, "results")
	os.MkdirAll(results, 0o755)
	// The arguments that make each command valid apart from the probe.
	base := map[string][]string{
		"quickstart": {"quickstart"},
		"plan":       {"plan", sweep},
		"sweep":      {"sweep", sweep, "--out=" + filepath.Join(dir, "out")},
		"collect":    {"collect", results},
		"plot":       {"plot", results},
		"slurm":      {"slurm", sweep, "--out=" + filepath.Join(dir, "slurm")},
		"task":       {"task", sweep, "--out=" + filepath.Join(dir, "task"), "--tasks=1"},
		"status":     {"status", results},
		"table":      {"table", results},
		"export":     {"export", results, "--csv"},
		"scaling":    {"scaling", results},
		"audit":      {"audit"},
		"reproduce":  {"reproduce", "--list"},
	}
	var app cli
	k := kong.Must(&app, kong.Name("run"))
	seen := map[string]bool{}
	probes := 0
	for _, cmd := range k.Model.Children {
		args, ok := base[cmd.Name]
		if !ok {
			t.Errorf("command %s: no base arguments in TestFlagProbes", cmd.Name)
			continue
		}
		var flags []*kong.Flag
		for _, group := range cmd.AllFlags(true) {
			flags = append(flags, group...)
		}
		for _, f := range flags {
			key := cmd.Name + " --" + f.Name
			if f.Name == "help" {
				continue
			}
			if k.Model.Node.Flags != nil && isGlobal(k.Model.Node, f) {
				key = "--" + f.Name
				if seen[key] {
					continue
				}
			}
			seen[key] = true
			rule, ok := flagRules[key]
			if !ok {
				t.Errorf("%s: no rule in flagRules: decide what 0, -1, NaN, +Inf, 1e308 and a newline mean for it", key)
				continue
			}
			for _, v := range flagProbes {
				probes++
				argv := append(withoutFlag(args, f.Name), "--"+f.Name+"="+v)
				meaning, accepted := rule[v]
				if m, ok := flagProbeExceptions[key+"="+v]; ok {
					meaning, accepted = m, true
				}
				err := probe(t, argv, !accepted)
				switch {
				case accepted && err != nil:
					t.Errorf("%s=%q: documented as %q, but refused: %v", key, v, meaning, err)
				case accepted:
				case err == nil:
					t.Errorf("%s=%q: accepted (no rule gives it a meaning)", key, v)
				case !strings.Contains(err.Error(), "--"+f.Name):
					t.Errorf("%s=%q: error does not name the flag: %v", key, v, err)
				}
			}
		}
	}
	for key := range flagRules {
		if !seen[key] {
			t.Errorf("flagRules has %s, which is not a flag", key)
		}
	}
	if probes < 300 {
		t.Errorf("only %d probes: the model walk missed flags", probes)
	}
}

// isGlobal reports whether f is one of the root's flags.
func isGlobal(root *kong.Node, f *kong.Flag) bool {
	for _, g := range root.Flags {
		if g == f {
			return true
		}
	}
	return false
}

// withoutFlag drops a --name=... argument from args.
func withoutFlag(args []string, name string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--"+name+"=") {
			out = append(out, a)
		}
	}
	return out
}

// probe parses argv and, if run, runs the command under a 30 s context
// deadline. A panic is an error.
func probe(t *testing.T, argv []string, run bool) (err error) {
	t.Helper()
	var app cli
	k, err := kong.New(&app, kong.Name("run"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
			t.Errorf("%q: panic: %v", argv, v)
		}
	}()
	kctx, err := k.Parse(argv)
	if err != nil || !run {
		return err
	}
	return runBounded(t, kctx, argv)
}

// runBounded runs a parsed command with a context deadline.
func runBounded(t *testing.T, kctx *kong.Context, argv []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kctx.BindTo(ctx, (*context.Context)(nil))
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- fmt.Errorf("panic: %v", v)
			}
		}()
		done <- kctx.Run()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(35 * time.Second):
		t.Errorf("%q: still running 5 s after its context's deadline", argv)
		return fmt.Errorf("hang")
	}
}

// quietStdout sends the commands' standard output to /dev/null for the
// rest of the test.
func quietStdout(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = null
	t.Cleanup(func() { os.Stdout = saved; null.Close() })
}
