package main

import "errors"

// FitCmd is owned by the lasso work (temporary scaffold, replaced).
type FitCmd struct{}

// Run executes the command.
func (c *FitCmd) Run() error { return errors.New("fit: not yet built") }

// PartitionCmd is owned by the lasso work (temporary scaffold, replaced).
type PartitionCmd struct{}

// Run executes the command.
func (c *PartitionCmd) Run() error { return errors.New("partition: not yet built") }

// AllCmd is owned by the lasso work (temporary scaffold, replaced).
type AllCmd struct{}

// Run executes the command.
func (c *AllCmd) Run() error { return errors.New("all: not yet built") }
