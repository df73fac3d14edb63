// Package pqgroup is a Parquet group node for parquet-go whose fields keep
// the order they are given: parquet.Group is a map and sorts its fields by
// name, which would put a table's f10 before f2, or a struct's fields in
// an order its Arrow schema does not have.
package pqgroup

import (
	"fmt"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
)

// Group is a required Parquet group of named fields, in order.
type Group []Field

// Field is one named field of a Group.
type Field struct {
	name string
	parquet.Node
}

// Of returns the field name holding node.
func Of(name string, node parquet.Node) Field { return Field{name, node} }

// Name returns the field's name.
func (f Field) Name() string { return f.name }

// Value returns the field of a Go struct value by name (parquet-go's
// reflection path; the callers write parquet.Rows, not Go values).
func (f Field) Value(base reflect.Value) reflect.Value { return base.FieldByName(f.name) }

// ID is 0: no field ids.
func (g Group) ID() int { return 0 }

// String describes the group.
func (g Group) String() string { return fmt.Sprintf("group(%d fields)", len(g)) }

// Type is parquet-go's group type.
func (g Group) Type() parquet.Type { return parquet.Group{}.Type() }

// Optional is false: the group is required.
func (g Group) Optional() bool { return false }

// Repeated is false.
func (g Group) Repeated() bool { return false }

// Required is true.
func (g Group) Required() bool { return true }

// Leaf is false.
func (g Group) Leaf() bool { return false }

// Encoding is nil: the fields choose theirs.
func (g Group) Encoding() encoding.Encoding { return nil }

// Compression is nil: the writer's codec applies.
func (g Group) Compression() compress.Codec { return nil }

// GoType is a map: the group maps to no Go struct.
func (g Group) GoType() reflect.Type { return reflect.TypeOf(map[string]any{}) }

// Fields returns the fields in their order.
func (g Group) Fields() []parquet.Field {
	fs := make([]parquet.Field, len(g))
	for i := range g {
		fs[i] = g[i]
	}
	return fs
}
