package outputs

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/fedbandit/fedbandit/internal/buildinfo"
)

// This file makes the tables self-describing (README.md, "Self-describing
// tables"): the build that wrote them in the schema metadata, each
// field's unit, applies-to and meaning in its field metadata (from the
// one column table: Columns, CurveColumns, AuditColumns, and the
// registered parameters), the columns no row leaves null non-nullable,
// and in runs.arrow every parameter column of the release.

// Schema metadata keys of a table besides metaFormat.
const (
	metaVersion   = "fedbandit.version"           // the module version: a tag, a pseudo-version or "(devel)"
	metaRevision  = "fedbandit.vcs_revision"      // the VCS revision, or "unknown"
	metaModified  = "fedbandit.vcs_modified"      // "true", "false", or "unknown" without a revision
	metaSemantics = "fedbandit.semantics_version" // runner.SemanticsVersion, or "unknown" (not registered)
)

// Field metadata keys of a table's columns.
const (
	fieldUnit    = "fedbandit.unit"       // "" for dimensionless or categorical columns
	fieldApplies = "fedbandit.applies_to" // the rows with a value; null in the others
	fieldMeaning = "fedbandit.meaning"
)

// ArrowSchemaKey is the Parquet key-value metadata key under which the
// Parquet copies keep their Arrow schema (field metadata and nullability
// included), as pyarrow and arrow-go write and read it.
const ArrowSchemaKey = "ARROW:schema"

// Param is a parameter an algorithm of the release takes: its column
// param_<Key> is in every runs table the release writes.
type Param struct {
	Key string
	// Doc is its meaning (core.Param.Doc: one meaning per key).
	Doc string
	// Algorithms names the algorithms that take it ("se, dp-se").
	Algorithms string
}

// release is what RegisterRelease recorded.
var release struct {
	sync.Mutex
	set       bool
	semantics int
	params    map[string]Param
}

// RegisterRelease records what a table of this build says beyond its
// rows: the simulator-semantics version hashed into run ids, and every
// parameter an algorithm of the release takes (one param_<key> column
// each in every runs table, null where a run's algorithm does not take
// it, so that the runs tables of any two results directories of a
// release have the same columns). Package registry, which owns both,
// calls it once at start-up. A program that does not link registry (this
// package's own tests) writes "unknown" semantics and only the parameter
// columns its rows use. A second registration is a programming error.
func RegisterRelease(semantics int, params []Param) {
	release.Lock()
	defer release.Unlock()
	if release.set {
		panic("outputs: RegisterRelease called twice")
	}
	release.set, release.semantics, release.params = true, semantics, map[string]Param{}
	for _, p := range params {
		if !paramKey.MatchString(p.Key) {
			panic(fmt.Sprintf("outputs: parameter key %q: want letters, digits and _", p.Key))
		}
		release.params[p.Key] = p
	}
}

// registered returns the registered parameters (nil before
// RegisterRelease) and the semantics version ("unknown" before).
func registered() (map[string]Param, string) {
	release.Lock()
	defer release.Unlock()
	if !release.set {
		return nil, buildinfo.Unknown
	}
	return release.params, strconv.Itoa(release.semantics)
}

// releaseKeys are the keys of every registered parameter and of every
// parameter recs use, sorted: the param_<key> columns of their runs
// table.
func releaseKeys(recs []RunRecord) []string {
	params, _ := registered()
	keys := slices.Collect(maps.Keys(params))
	for _, k := range paramKeys(recs) {
		if _, ok := params[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// tableMetadata is the schema metadata of a table this build writes: its
// layout, the build (module version, VCS revision, whether the checkout
// was modified: "unknown" when the binary records none, as under go run,
// go test and -buildvcs=false; never guessed) and the simulator
// semantics.
func tableMetadata() arrow.Metadata {
	in := buildinfo.Read()
	modified := strconv.FormatBool(in.Modified)
	if in.Revision == buildinfo.Unknown {
		modified = buildinfo.Unknown
	}
	_, sem := registered()
	return arrow.NewMetadata(
		[]string{metaFormat, metaVersion, metaRevision, metaModified, metaSemantics},
		[]string{strconv.Itoa(FormatVersion), in.Version, in.Revision, modified, sem})
}

// tableSchema is the Arrow schema of a table of columns cols (runs.arrow,
// curves.arrow, audit.arrow): each field carries its column's unit,
// applies-to and meaning, and is non-nullable when no row leaves it null
// (Column.required). Per-run files keep schemaOf's plain fields.
func tableSchema[R any](cols []Column[R]) *arrow.Schema {
	md := tableMetadata()
	fields := make([]arrow.Field, len(cols))
	for j, c := range cols {
		fields[j] = arrow.Field{Name: c.Name, Type: c.codec().typ, Nullable: !c.required(),
			Metadata: arrow.NewMetadata([]string{fieldUnit, fieldApplies, fieldMeaning}, []string{c.Unit, c.Applies, c.Doc})}
	}
	return arrow.NewSchema(fields, &md)
}

// serializeSchema is the Arrow schema as the Parquet key ArrowSchemaKey
// holds it: the IPC stream of the schema alone, base64-encoded.
func serializeSchema(sc *arrow.Schema) (string, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(sc))
	if err := w.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
