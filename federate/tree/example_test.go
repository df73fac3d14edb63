package tree_test

import (
	"fmt"

	"github.com/fedbandit/fedbandit/federate/tree"
)

// Two silos release their batch sums through p-sum trees without noise;
// the server publishes the prefix sums (paper Algorithm 2).
func Example() {
	silos := []*tree.Tree{tree.New(1, nil), tree.New(1, nil)}
	srv := tree.NewServer(1)
	pub := make([]float64, 1)
	for k := 1; k <= 6; k++ {
		level := srv.Begin()
		for i, s := range silos {
			_, node := s.Add([]float64{float64(10*i + k)})
			srv.Receive(node)
		}
		srv.Publish(pub)
		fmt.Printf("batch %d: level %d, prefix nodes %v, published %v\n", k, level, tree.PrefixNodes(k), pub[0])
	}
	// Output:
	// batch 1: level 0, prefix nodes [{0 0}], published 12
	// batch 2: level 1, prefix nodes [{1 0}], published 26
	// batch 3: level 0, prefix nodes [{1 0} {0 2}], published 42
	// batch 4: level 2, prefix nodes [{2 0}], published 60
	// batch 5: level 0, prefix nodes [{2 0} {0 4}], published 80
	// batch 6: level 1, prefix nodes [{2 0} {1 2}], published 102
}
