package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// forbiddenDeps are import-path prefixes that must stay out of the build
// graphs of cmd/run and cmd/prep. gRPC, protobuf and arrow/flight came in
// through arrow-go's parquet/pqarrow, which imports arrow/flight to
// serialise an Arrow schema into the Parquet footer (which ours never
// carried): 117 of the commands' 548 packages, compiled on every cold
// build. The rest of arrow-go's parquet tree (parquet/file and what it
// needs: arrow's compute kernels, Apache Thrift with net/http and
// crypto/tls, brotli, zstd's encoder tables, the generated parquet.thrift
// code) cost most of the remaining cold build. documents.parquet is
// written and read with github.com/parquet-go/parquet-go at v0.25.1, the
// last release whose package imports no protobuf (from v0.26 its
// column buffers support protobuf messages and import
// google.golang.org/protobuf).
// parquetGo is the Parquet library of the commands.
const parquetGo = "github.com/parquet-go/parquet-go"

var forbiddenDeps = []string{
	"github.com/fedbandit/fedbandit/internal/parquetfile",
	"google.golang.org/grpc",
	"google.golang.org/protobuf",
	"google.golang.org/genproto",
	"github.com/apache/arrow-go/v18/arrow/flight",
	"github.com/apache/arrow-go/v18/arrow/compute",
	"github.com/apache/arrow-go/v18/parquet",
	"github.com/apache/thrift",
}

// TestNoRPCInBuildGraph: `go list -deps` of cmd/run and cmd/prep names no
// gRPC, protobuf, arrow/flight, arrow/compute, Apache Thrift or arrow-go
// parquet package (and it does name parquet-go). Skipped only when no go
// tool is found. Mutation controls: a blank import of parquet/pqarrow in
// package ingest made it fail, naming pqarrow, flight, grpc and protobuf;
// a blank import of parquet/file made it fail, naming parquet/file,
// compute and thrift; parquet-go upgraded to v0.26.4 made it fail, naming
// protobuf.
func TestNoRPCInBuildGraph(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to list the build graph")
		}
	}
	const mod = "github.com/fedbandit/fedbandit/"
	cmd := exec.Command(goTool, "list", "-deps", mod+"cmd/run", mod+"cmd/prep")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list -deps: %v\n%s", err, msg)
	}
	deps := strings.Fields(string(out))
	// The list must be the real graph: it holds the Parquet package the
	// commands do use.
	var haveParquet bool
	for _, p := range deps {
		haveParquet = haveParquet || p == parquetGo
		for _, f := range forbiddenDeps {
			if p == f || strings.HasPrefix(p, f+"/") {
				t.Errorf("%s is in the build graph of cmd/run or cmd/prep (see `go mod why %s`)", p, p)
				break
			}
		}
	}
	if !haveParquet {
		t.Fatalf("go list -deps printed %d packages without %s: not the commands' graph", len(deps), parquetGo)
	}
}
