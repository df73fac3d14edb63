package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
)

// maxListedValues is the longest explicit list an instance description
// spells out; a longer one is named by a hash of its values.
const maxListedValues = 8

// givenValues describes an explicit list of an instance (a mab
// instance's means, a synthetic theta) as one word of its description:
// "means=[0.1,0.9]", or "means=sha256:0123abcd" beyond maxListedValues
// values. Instances whose lists differ have different descriptions, so
// that they are never one class of `--over instance` (InstanceClass;
// attack round 3, W1), and the legend says what the class is.
func givenValues(key string, v []float64) string {
	if len(v) > maxListedValues {
		b, _ := json.Marshal(v)
		sum := sha256.Sum256(b)
		return key + "=sha256:" + hex.EncodeToString(sum[:4])
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return key + "=[" + strings.Join(s, ",") + "]"
}
