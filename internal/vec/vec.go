// Package vec holds the simulator's vector kernels: the UCB scores of a
// panel of actions, the per-observation learner steps (Gram and bias
// update, recursive least squares), the first-maximum search and the
// normalisation of the synthetic contexts. Each has an AVX2/FMA assembly
// kernel (amd64) and a portable Go twin that defines it and gives the
// same bits on every machine; a Kernels table holds one set of them, and
// the caller chooses the table (Best, Portable, Assembly). Building with
// -tags purego keeps the Go twins everywhere.
//
// The kernels read and write plain []float64 in the layouts below, which
// they assume without checking beyond the slices' lengths.
//
// Panel layout (UCBScores' x, Normalize's x): candidate actions of
// dimension d in blocks of Lanes = 4 actions, coordinate-major inside a
// block, so that one SIMD register holds one coordinate of a block's four
// actions:
//
//	coordinate j of action a is x[(a/4)*4*d + j*4 + a%4]
//
// A panel of n actions has PanelLen(n, d) values: the unused lanes of its
// last block are padding, which the kernels compute on like any other
// lane (their scores or means are written and must be ignored; zero
// padding, as ToPanel writes, keeps the values finite).
//
// Packed layout (AddObs' and Learn's Gram w): a symmetric d x d matrix as
// its upper triangle row by row, diagonal included, PackedLen(d) values.
//
// Width form (UCBScores' and Learn's p): the packed layout of a symmetric
// A with every off-diagonal entry doubled (WidthForm), so that
// x^T A x = sum_i x_i sum_{j>=i} p_ij x_j in d(d+1)/2 multiply-adds.
//
// Scratch (Learn's g): ScratchLen(d) values, d rounded up to a multiple
// of 4.
package vec

// Lanes is the number of actions in a block of the panel layout.
const Lanes = 4

// PanelLen returns the length of a panel of n actions of dimension d:
// n rounded up to whole blocks, times d.
func PanelLen(n, d int) int { return (n + Lanes - 1) / Lanes * Lanes * d }

// PanelRow writes the coordinates of action a of the panel x into dst
// (dimension d = len(dst)).
func PanelRow(dst, x []float64, a int) {
	d := len(dst)
	base := a/Lanes*Lanes*d + a%Lanes
	for j := range dst {
		dst[j] = x[base+j*Lanes]
	}
}

// ToPanel writes the n actions of the row-major n x d matrix rows into
// dst (len PanelLen(n, d)) in panel layout, zeroing the padding lanes.
func ToPanel(dst, rows []float64, n, d int) {
	clear(dst)
	for a := 0; a < n; a++ {
		base := a/Lanes*Lanes*d + a%Lanes
		for j, v := range rows[a*d : (a+1)*d] {
			dst[base+j*Lanes] = v
		}
	}
}

// PackedLen returns the length of a packed symmetric d x d matrix (and of
// a width form): d(d+1)/2.
func PackedLen(d int) int { return d * (d + 1) / 2 }

// WidthForm packs the full symmetric d x d matrix a (row-major) into p
// (len PackedLen(d)) in width form: the upper triangle row by row, the
// diagonal as is, each off-diagonal entry doubled.
func WidthForm(p, a []float64, d int) {
	idx := 0
	for i := 0; i < d; i++ {
		p[idx] = a[i*d+i]
		idx++
		for j := i + 1; j < d; j++ {
			p[idx] = 2 * a[i*d+j]
			idx++
		}
	}
}

// ScratchLen is the length of Learn's scratch g for dimension d: d
// rounded up to a multiple of 4.
func ScratchLen(d int) int { return (d + 3) &^ 3 }

// Kernels is a set of implementations of the kernels: the Go twins
// (Portable) or the assembly kernels (Assembly). Every set computes the
// same bits; the simulator holds one and calls through it, and tests
// swap whole sets to compare them.
type Kernels struct {
	// Name is "go" for the Go twins, "avx2+fma" for the assembly kernels.
	Name string

	// UCBScores writes the UCB score of every lane of the nb blocks of
	// the panel x (dimension d) into dst[0 : 4*nb]:
	//
	//	u = fma(beta, sqrt(max(w, 0)), m)
	//	m = x . theta             (fused multiply-adds, j ascending from 0)
	//	w = x^T A x = sum_i x_i s_i,  s_i = sum_{j >= i} p_ij x_j
	//
	// where p is A in width form, the s_i and w accumulated with fused
	// multiply-adds in ascending order from 0 (w = fma(x_i, s_i, w)),
	// and max(w, 0) is 0 for NaN. Exactly these operations in exactly
	// this order (ucbScoresGo). It panics if dst, x, p or theta is
	// shorter than 4nb, 4nb d, PackedLen(d) or d.
	UCBScores func(dst, x []float64, nb, d int, p, theta []float64, beta float64)

	// Normalize turns nb blocks of normals z (block b's 4(d-1) normals
	// coordinate-major: z[b*4*(d-1) + 4j + l] is coordinate j of lane l)
	// into synthetic contexts in panel layout x (PanelLen(4nb, d)) and
	// their means mu[:4nb], d = len(theta) >= 2. For each lane:
	//
	//	ss  = sum_j z_j^2           (fused multiply-adds, j ascending from 0)
	//	inv = 1 / sqrt(ss)          (two correctly rounded operations)
	//	u_j = z_j * inv,  x_j = u_j * InvSqrt2,  x_{d-1} = InvSqrt2
	//	mu  = (sum_j u_j theta_j) + theta_{d-1}   (fused multiply-adds)
	//
	// (normalizeGo, normalize.go). It panics on slices too short for nb
	// and d.
	Normalize func(x, mu, z []float64, nb int, theta []float64)

	// ArgmaxFirst returns the index of the first maximum of v (NaN
	// entries are never selected; 0 if v[0] is NaN).
	ArgmaxFirst func(v []float64) int

	// AddObs adds one observation to a Gram and bias: w += x x^T (w
	// packed, d = len(x)) and u += y x, entry by entry:
	// w_ij = fma(x_i, x_j, w_ij) for j >= i, u_i = fma(x_i, y, u_i).
	AddObs func(w, u, x []float64, y float64)

	// Learn is the eager learner's step for one observation: AddObs(w,
	// u, x, y), then the recursive least-squares (Sherman-Morrison) step
	// on A = V^-1 in width form p and theta = A b: A becomes
	// (V + x x^T)^-1 and theta A (b + x y), with g as scratch
	// (ScratchLen(d) values; g[:d] ends as A x). It returns x^T V^-1 x
	// under the V before the step. The order of the operations, which
	// every set reproduces, is stated on rlsUpdateGo (rls.go).
	Learn func(w, u, p, theta, x []float64, y float64, g []float64) (xVx float64)
}

// Portable returns the Go twins, which run everywhere.
func Portable() Kernels {
	return Kernels{
		Name:        "go",
		UCBScores:   ucbScoresGo,
		Normalize:   normalizeGo,
		ArgmaxFirst: argmaxFirstGo,
		AddObs:      addObsGo,
		Learn:       learnGo,
	}
}

// Best returns the assembly kernels where the build and the CPU run them
// (Assembly), else the Go twins.
func Best() Kernels {
	if k, ok := Assembly(); ok {
		return k
	}
	return Portable()
}
