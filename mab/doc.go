// Package mab is the distributed-DP multi-armed bandit family of Chowdhury
// & Zhou, "Distributed Differential Privacy in Multi-Armed Bandits" (ICLR
// 2023, arXiv 2206.05772): batched successive elimination (their
// Algorithm 1) with one privacy protocol per trust model, from no privacy
// through central and local pure DP to distributed pure DP, Renyi DP and
// concentrated DP under simulated secure aggregation (their Algorithms 2
// and 3, simulated exactly in integers).
//
// New builds a run (a core.Problem and the core.Privacy claim its noise
// certifies) from a Spec; Algorithms lists the algorithms with their
// parameters; Audit replays the worst-case neighbouring pair through the
// real encode-noise-modular-sum-decode path. docs/mab.md describes the
// family, its parameters and its accounting.
package mab
