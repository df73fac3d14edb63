// Package bco is the locally private bandit convex optimisation family of
// the simulator: Huang et al., "Locally Differentially Private Bandits
// Learning" (NeurIPS 2020), Algorithms 1 and 2, around the non-private
// one-point (Flaxman, Kalai & McMahan 2005) and two-point (Agarwal, Dekel &
// Xiao 2010) bandit gradient methods.
//
// An instance is a convex body (the ball of radius R in R^d) and a seeded
// sequence of convex losses of one of four classes: convex Lipschitz,
// convex and smooth, strongly convex, strongly convex and smooth. Each
// round every silo's user suffers her loss at the point the silo plays and
// reports it (one-point) or the difference of two losses (two-point); under
// local DP she adds Gaussian noise to the report first, so whatever the
// server does afterwards is post-processing. M silos that average their
// iterates every B rounds reuse the grid's M and B; M = 1 is the paper's
// setting.
//
// Regret is against the best fixed point in hindsight of the whole group's
// losses, computed exactly at every round (closed forms, or an exact
// one-dimensional solve over the losses' finitely many breakpoints): the
// realised curve with the losses as drawn, the pseudo curve with their
// expectations. docs/bco.md states the classes, the tuning and the
// accounting.
package bco
