package runner

import (
	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/federate/accountant"
)

// trustOfModel is the trust model of each privacy model of the
// accountant: who must be trusted with users' raw data (docs/privacy.md).
// Silo-level LDP and FedUCB noise each silo's messages, LDP-LinUCB each
// user's: the server is trusted with nothing (local). The shuffle models
// trust the shuffler, the super agent a central curator.
var trustOfModel = map[string]string{
	accountant.ModelNone:       core.TrustNone,
	accountant.ModelLDP:        core.TrustLocal,
	accountant.ModelFedUCB:     core.TrustLocal,
	accountant.ModelUserLDP:    core.TrustLocal,
	accountant.ModelUserLDPGLM: core.TrustLocal,
	accountant.ModelSDPAmp:     core.TrustShuffle,
	accountant.ModelSDPVec:     core.TrustShuffle,
	accountant.ModelCentral:    core.TrustCentral,
}

// linearTrust is the trust model of a registered linear-family algorithm
// ("" for an unknown name, which NewRun has rejected before).
func linearTrust(algorithm string) string {
	alg, err := federate.LookupAlgorithm(algorithm)
	if err != nil {
		return ""
	}
	return trustOfModel[alg.Model]
}

// linearParams are the algorithm's own parameters of a spec with defaults
// filled in, with their values as run: FedUCB's sync_threshold (its
// default T ln(MT)/(dM) when the spec leaves it 0); none for the others.
func linearParams(s federate.Spec) map[string]float64 {
	p := map[string]float64{}
	if s.Algorithm == federate.AlgFedUCB {
		d := s.SyncThreshold
		if d == 0 {
			d = federate.DefaultSyncThreshold(s.T, s.M, s.Dim())
		}
		p["sync_threshold"] = d
	}
	return p
}
