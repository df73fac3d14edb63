package mab

import (
	"fmt"
	"math"
	"strings"
)

// Arms from learning-to-rank data (`kind = "mab-ltr"`, docs/mab.md): the
// arms are one query's documents, and a round shows the user one document,
// which she clicks (reward 1) or not (0). The click probability of a
// document is its relevance label's under a click model, or label / the
// dataset's maximum label.

// Click models: the click probabilities per relevance label of the
// cascade click models used to evaluate online learning to rank (Hofmann,
// Whiteson & de Rijke 2013; Oosterhuis & de Rijke 2018, the values of their
// code, HarrieO/OnlineLearningToRank utils/clicks.py). A round here shows
// one document, so only the click probability applies: the models' stop
// probabilities govern the documents below a click in a ranked list.
const (
	ClickPerfect       = "perfect"
	ClickNavigational  = "navigational"
	ClickInformational = "informational"
)

// ClickModels lists the click models in documentation order.
var ClickModels = []string{ClickPerfect, ClickNavigational, ClickInformational}

// clickTables are P(click | label) by the number of relevance levels:
// binary (0-1), three levels (LETOR 4.0 MQ2007/MQ2008, 0-2) and five
// (MSLR-WEB, Yahoo!, 0-4).
var clickTables = map[int]map[string][]float64{
	2: {
		ClickPerfect:       {0, 1},
		ClickNavigational:  {0.05, 0.95},
		ClickInformational: {0.4, 0.9},
	},
	3: {
		ClickPerfect:       {0, 0.5, 1},
		ClickNavigational:  {0.05, 0.5, 0.95},
		ClickInformational: {0.4, 0.7, 0.9},
	},
	5: {
		ClickPerfect:       {0, 0.2, 0.4, 0.8, 1},
		ClickNavigational:  {0.05, 0.3, 0.5, 0.7, 0.95},
		ClickInformational: {0.4, 0.6, 0.7, 0.8, 0.9},
	},
}

// ClickProbabilities returns P(click | label) for labels 0..labelMax
// under a click model. The models are defined for 2, 3 and 5 relevance
// levels; any other labelMax is an error naming click_model.
func ClickProbabilities(model string, labelMax int) ([]float64, error) {
	tables, ok := clickTables[labelMax+1]
	if !ok {
		return nil, fmt.Errorf("click_model = %q: the click models are defined for labels 0-1, 0-2 and 0-4; this dataset's labels are 0-%d (use reward = \"label\")", model, labelMax)
	}
	p, ok := tables[model]
	if !ok {
		return nil, fmt.Errorf("click_model = %q: want one of %s", model, strings.Join(ClickModels, ", "))
	}
	return append([]float64(nil), p...), nil
}

// LTRMeans returns the arms' means for documents with the given labels
// (integers in 0..labelMax): P(click | label) under clickModel, or label /
// labelMax when clickModel is "".
func LTRMeans(labels []float64, labelMax int, clickModel string) ([]float64, error) {
	if labelMax < 1 {
		return nil, fmt.Errorf("dataset: maximum label %d, need at least 1", labelMax)
	}
	var table []float64
	if clickModel != "" {
		var err error
		if table, err = ClickProbabilities(clickModel, labelMax); err != nil {
			return nil, err
		}
	}
	means := make([]float64, len(labels))
	for i, l := range labels {
		if l != math.Trunc(l) || l < 0 || l > float64(labelMax) {
			return nil, fmt.Errorf("dataset: document %d has label %v, not an integer in 0..%d", i+1, l, labelMax)
		}
		if table != nil {
			means[i] = table[int(l)]
		} else {
			means[i] = l / float64(labelMax)
		}
	}
	return means, nil
}
