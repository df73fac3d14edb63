package partition_test

import (
	"fmt"

	"github.com/fedbandit/fedbandit/partition"
)

func ExampleSplit() {
	// Seven queries with their document counts.
	qs := []partition.Query{{Docs: 5}, {Docs: 1}, {Docs: 3}, {Docs: 1}, {Docs: 9}, {Docs: 2}, {Docs: 4}}
	p, err := partition.Split(partition.Contiguous, qs, 3, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println("contiguous:", p.Assign, "unused:", p.Unused)
	p, _ = partition.Split(partition.BySize, qs, 3, 0)
	fmt.Println("by-size:   ", p.Assign, "unused:", p.Unused)
	_, err = partition.Split(partition.Contiguous, qs, 8, 0)
	fmt.Println(err)
	// Output:
	// contiguous: [[0 1] [2 3] [4 5]] unused: [6]
	// by-size:    [[1 3] [2 5] [0 6]] unused: [4]
	// partition: 8 silos but the dataset has only 7 queries (every silo needs at least one)
}
