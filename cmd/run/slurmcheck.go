package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Everything `run slurm` writes into a job script is checked here before a
// byte is written: free text (the sweep's name, paths, the site's
// partition, account and extra directives) may hold no control character
// (a newline would end the #SBATCH line and start a shell command, and
// Slurm stops reading directives at the first command), values reach
// #SBATCH lines only through sbatchQuote and shell lines only through
// shellQuote, and --time and --mem must be in Slurm's syntax.

// noControl returns an error naming what if s holds a control character
// (newline, carriage return, tab, NUL, DEL, ...).
func noControl(what, s string) error {
	for i, r := range s {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("%s %q: control character %U at byte %d: refused, it would reach a job script", what, s, r, i)
		}
	}
	return nil
}

// sbatchQuote renders a value for an #SBATCH line, which sbatch parses
// itself: a value of plain characters as is, any other in double quotes
// with " and \ escaped by a backslash (sbatch's directive syntax; an
// unquoted # would start a comment, a space end the value). The value
// must have passed noControl.
func sbatchQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == "" {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// slurmTimeRE is Slurm's time-limit syntax: minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes,
// days-hours:minutes:seconds.
var slurmTimeRE = regexp.MustCompile(`^(\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+)$`)

// checkSlurmTime checks --time: a positive time limit in Slurm's syntax.
func checkSlurmTime(s string) error {
	if !slurmTimeRE.MatchString(s) {
		return fmt.Errorf("--time %q: want a time limit in Slurm's syntax: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS", s)
	}
	if strings.Trim(s, "0:-") == "" {
		return fmt.Errorf("--time %q: want a positive time limit (Slurm reads 0 as no limit; leave --time out for the estimate)", s)
	}
	return nil
}

// slurmMemRE is Slurm's memory syntax: an integer with an optional unit
// K, M (the default), G or T.
var slurmMemRE = regexp.MustCompile(`^[0-9]+[KMGT]?$`)

// checkSlurmMem checks --mem: a positive size in Slurm's syntax.
func checkSlurmMem(s string) error {
	if !slurmMemRE.MatchString(s) {
		return fmt.Errorf("--mem %q: want a memory size in Slurm's syntax: an integer with an optional unit K, M (default), G or T, e.g. 4G", s)
	}
	if strings.Trim(strings.TrimRight(s, "KMGT"), "0") == "" {
		return fmt.Errorf("--mem %q: want a positive size (Slurm reads 0 as all of a node's memory; leave --mem out for the estimate)", s)
	}
	return nil
}

// slurmNameRE is the syntax of partition and account names (and of a
// comma-separated list of partitions).
var slurmNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$`)

// checkSlurmName checks a partition or account name.
func checkSlurmName(flag, s string) error {
	if s == "" || slurmNameRE.MatchString(s) {
		return nil
	}
	if err := noControl(flag, s); err != nil {
		return err
	}
	return fmt.Errorf("%s %q: want a Slurm name of letters, digits, _ . - (partitions may be a comma-separated list)", flag, s)
}

// sbatchOptionRE is one extra directive: --option or --option=value.
var sbatchOptionRE = regexp.MustCompile(`^--[A-Za-z][A-Za-z0-9-]*(=.*)?$`)

// sbatchDirective checks one --sbatch value and renders it for an #SBATCH
// line, its value quoted.
func sbatchDirective(s string) (string, error) {
	if err := noControl("--sbatch", s); err != nil {
		return "", err
	}
	if !sbatchOptionRE.MatchString(s) {
		return "", fmt.Errorf("--sbatch %q: want one sbatch option as --option or --option=value, e.g. --sbatch=--qos=short", s)
	}
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return name, nil
	}
	return name + "=" + sbatchQuote(value), nil
}
