// Package cliconv holds the command-line conventions the two commands,
// run and prep, share: a usage error (an unknown command or flag, a bad
// flag value) exits with status 2 after one error line, a short usage line
// and where to read more, never the whole help; a mistyped command gets a
// "did you mean"; every other error exits with status 1.
package cliconv

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/fedbandit/fedbandit/internal/suggest"
)

// ExitUsage is the exit status of a usage error (as Go's flag package and
// Python's argparse).
const ExitUsage = 2

// usageError marks an error as the user's use of the command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// Usage marks err (nil stays nil) as a usage error: a flag value or an
// argument that only the command itself can check (a metric name, a round
// that is no checkpoint). Report then exits with ExitUsage and the short
// usage.
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// IsUsage reports whether err is a usage error: a kong parse error
// (unknown command or flag, missing argument, a Validate or AfterApply
// refusal), one marked by Usage, or one whose ExitCode is ExitUsage.
func IsUsage(err error) bool {
	var pe *kong.ParseError
	var ue usageError
	var ec kong.ExitCoder
	return errors.As(err, &pe) || errors.As(err, &ue) || (errors.As(err, &ec) && ec.ExitCode() == ExitUsage)
}

// Parse parses args like k.Parse, first refusing a first word that is no
// command with the commands closest to it (kong would otherwise hand it
// to the default command as an argument, or list no suggestion for a
// global flag such as --version). Its errors are usage errors.
func Parse(k *kong.Kong, args []string) (*kong.Context, error) {
	if err := checkCommand(k.Model, args); err != nil {
		return nil, err
	}
	return k.Parse(args)
}

// checkCommand refuses a first positional word (after the global flags)
// that is no command of app; app without commands takes any.
func checkCommand(app *kong.Application, args []string) error {
	var names []string
	known := map[string]bool{}
	for _, c := range app.Children {
		if c.Type != kong.CommandNode || c.Hidden {
			continue
		}
		names = append(names, c.Name)
		known[c.Name] = true
		for _, a := range c.Aliases {
			known[a] = true
		}
	}
	if len(names) == 0 {
		return nil
	}
	flags := map[string]*kong.Flag{}
	var flagNames []string
	for _, f := range app.Flags {
		flags["--"+f.Name] = f
		if f.Short != 0 {
			flags["-"+string(f.Short)] = f
		}
		if !f.Hidden {
			flagNames = append(flagNames, "--"+f.Name)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return nil
		case strings.HasPrefix(a, "-"):
			name, _, hasValue := strings.Cut(a, "=")
			f, ok := flags[name]
			if !ok {
				return nil // kong names the unknown flag
			}
			if !f.IsBool() && !f.IsCounter() && !hasValue {
				i++ // its value
			}
		case known[a]:
			return nil
		default:
			return usageError{fmt.Errorf("unknown command %q (the commands: %s)%s", a,
				strings.Join(names, ", "), suggest.DidYouMean(a, append(names, flagNames...)))}
		}
	}
	return nil
}

// Start parses args with k (Parse) and sets the default logger of both
// commands: text lines on os.Stderr, at debug level when *verbose (their
// -v flag, which parsing sets). A parse error is reported on w (Report)
// and Start returns ok false with its exit status.
func Start(k *kong.Kong, args []string, w io.Writer, verbose *bool) (kctx *kong.Context, status int, ok bool) {
	kctx, err := Parse(k, args)
	if err != nil {
		return nil, Report(w, k, nil, err), false
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	return kctx, 0, true
}

// Report writes err to w and returns the exit status: for a usage error
// the error line, the usage of the command it concerns (kctx's, or the
// parse error's own) and where to read more, and ExitUsage; for any other
// error the error line and 1. kctx may be nil.
func Report(w io.Writer, k *kong.Kong, kctx *kong.Context, err error) int {
	name := k.Model.Name
	fmt.Fprintf(w, "%s: error: %v\n", name, err)
	if !IsUsage(err) {
		return 1
	}
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		kctx = pe.Context
	}
	fmt.Fprintln(w, ShortUsage(k, kctx))
	return ExitUsage
}

// ShortUsage is the two-line usage of kctx's selected command (of the
// whole program when kctx is nil or selects none): its synopsis, and the
// command that explains it.
func ShortUsage(k *kong.Kong, kctx *kong.Context) string {
	name := k.Model.Name
	var cmd *kong.Node
	if kctx != nil {
		cmd = kctx.Selected()
	}
	if cmd == nil {
		return fmt.Sprintf("usage: %s [flags] <command> [args]\nsee '%s --help'", name, name)
	}
	return fmt.Sprintf("usage: %s %s\nsee '%s --help'", name, cmd.Summary(), cmd.FullPath())
}
