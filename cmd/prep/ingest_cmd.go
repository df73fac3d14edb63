package main

import "errors"

// IngestCmd is owned by the ingest work (temporary scaffold, replaced).
type IngestCmd struct{}

// Run executes the command.
func (c *IngestCmd) Run() error { return errors.New("ingest: not yet built") }

// SynthCmd is owned by the ingest work (temporary scaffold, replaced).
type SynthCmd struct{}

// Run executes the command.
func (c *SynthCmd) Run() error { return errors.New("synth: not yet built") }
