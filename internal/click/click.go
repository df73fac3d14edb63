// Package click holds the click models of learning-to-rank data: the
// probability that a user shown one document clicks it, by the document's
// relevance label. It belongs to no family: a data-backed instance kind
// of any family (the mab family's `mab-ltr`, whose arms are one query's
// documents; the linear family's `ltr-click`, whose contexts are the
// documents) turns a dataset's labels into Bernoulli means with it.
package click

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Click models: the click probabilities per relevance label of the
// cascade click models used to evaluate online learning to rank (Hofmann,
// Whiteson & de Rijke 2013; Oosterhuis & de Rijke 2018, the values of their
// code, HarrieO/OnlineLearningToRank utils/clicks.py). A round here shows
// one document, so only the click probability applies: the models' stop
// probabilities govern the documents below a click in a ranked list.
const (
	Perfect       = "perfect"
	Navigational  = "navigational"
	Informational = "informational"
)

// Models lists the click models in documentation order.
var Models = []string{Perfect, Navigational, Informational}

// clickTables are P(click | label) by the number of relevance levels:
// binary (0-1), three levels (LETOR 4.0 MQ2007/MQ2008, 0-2) and five
// (MSLR-WEB, Yahoo!, 0-4).
var clickTables = map[int]map[string][]float64{
	2: {
		Perfect:       {0, 1},
		Navigational:  {0.05, 0.95},
		Informational: {0.4, 0.9},
	},
	3: {
		Perfect:       {0, 0.5, 1},
		Navigational:  {0.05, 0.5, 0.95},
		Informational: {0.4, 0.7, 0.9},
	},
	5: {
		Perfect:       {0, 0.2, 0.4, 0.8, 1},
		Navigational:  {0.05, 0.3, 0.5, 0.7, 0.95},
		Informational: {0.4, 0.6, 0.7, 0.8, 0.9},
	},
}

// ErrLevels is returned (wrapped) by Probabilities for a dataset whose
// number of relevance levels no click model is defined for.
var ErrLevels = errors.New("the click models are defined for labels 0-1, 0-2 and 0-4")

// Probabilities returns P(click | label) for labels 0..labelMax
// under a click model. The models are defined for 2, 3 and 5 relevance
// levels; any other labelMax is an error naming click_model.
func Probabilities(model string, labelMax int) ([]float64, error) {
	tables, ok := clickTables[labelMax+1]
	if !ok {
		return nil, fmt.Errorf("click_model = %q: %w; this dataset's labels are 0-%d", model, ErrLevels, labelMax)
	}
	p, ok := tables[model]
	if !ok {
		return nil, fmt.Errorf("click_model = %q: want one of %s", model, strings.Join(Models, ", "))
	}
	return append([]float64(nil), p...), nil
}

// Means returns the Bernoulli means of documents with the given labels
// (integers in 0..labelMax): P(click | label) under clickModel, or label /
// labelMax when clickModel is "".
func Means(labels []float64, labelMax int, clickModel string) ([]float64, error) {
	if labelMax < 1 {
		return nil, fmt.Errorf("dataset: maximum label %d, need at least 1", labelMax)
	}
	var table []float64
	if clickModel != "" {
		var err error
		if table, err = Probabilities(clickModel, labelMax); err != nil {
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
