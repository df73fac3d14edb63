package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/partition"
)

// VerifyCmd is `prep verify`: hash every artifact of a dataset directory
// and compare with what was recorded when it was written.
type VerifyCmd struct {
	Dataset string `arg:"" name:"DATASET_DIR" type:"existingdir" help:"Prepared dataset directory."`
}

// Help is shown by `prep verify --help` after the flags.
func (c *VerifyCmd) Help() string {
	return `Hashes documents.parquet unconditionally (loads skip the hash while the
file's size, modification time and, on Linux, device, inode and
status-change time are those of the last successful check), re-hashes
its rows and compares them with the dataset identity (data_sha256) the
manifest records, and reads every instances/*.theta.json and partitions/*.json, which check
their own content hashes and the dataset hash they were made from.
Exits non-zero, naming each bad file, if anything changed.

Example:
  prep verify data/mslr10k`
}

// Run executes `prep verify`.
func (c *VerifyCmd) Run() error {
	m, err := ingest.Verify(c.Dataset)
	if err != nil {
		return err
	}
	fmt.Printf("ok  %s (documents_sha256 %s; dataset data_sha256 %s)\n", filepath.Join(c.Dataset, ingest.DocumentsFile), short(m.FileHash), short(m.DataHash))
	var errs []error
	thetas, _ := filepath.Glob(filepath.Join(c.Dataset, lasso.InstancesDir, "*.theta.json"))
	for _, p := range thetas {
		t, _, err := lasso.ReadTheta(p)
		switch {
		case err != nil:
			errs = append(errs, err)
		case t.DatasetSHA256 != m.DataHash:
			errs = append(errs, fmt.Errorf("%s was fitted on dataset %s, not on this one (%s): re-run prep fit", p, short(t.DatasetSHA256), short(m.DataHash)))
		default:
			fmt.Printf("ok  %s\n", p)
		}
	}
	parts, _ := filepath.Glob(filepath.Join(c.Dataset, partition.Dir, "*.json"))
	for _, p := range parts {
		a, err := partition.ReadArtifact(p)
		switch {
		case err != nil:
			errs = append(errs, err)
		case a.DatasetSHA256 != m.DataHash:
			errs = append(errs, fmt.Errorf("%s was made from dataset %s, not from this one (%s): re-run prep partition", p, short(a.DatasetSHA256), short(m.DataHash)))
		default:
			fmt.Printf("ok  %s\n", p)
		}
	}
	for _, err := range errs {
		fmt.Fprintln(os.Stderr, "BAD", err)
	}
	return errors.Join(errs...)
}

// short abbreviates a hex hash for messages.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
