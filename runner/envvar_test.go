package runner

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestSF15UnsetDatasetVariable (attack round 2, case 41): an unset
// $VARIABLE in an ltr instance's dataset is named in the error, with the
// key, instead of "stat /x: no such file or directory", and says where
// the main job prepared MQ2008 (notebook review 2: a user had to work the
// cache path out).
func TestSF15UnsetDatasetVariable(t *testing.T) {
	os.Unsetenv("FEDBANDIT_NOPE_20A")
	cfg := strings.Replace(base, `kind = "synthetic"
d = 4
k = 10
noise_var = 0.25`, `kind = "ltr"
dataset = "$FEDBANDIT_NOPE_20A/x"
features = "title"`, 1)
	_, err := ParseConfig([]byte(cfg), t.TempDir())
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != "instance[0].dataset" || !strings.Contains(err.Error(), "$FEDBANDIT_NOPE_20A is not set") ||
		!strings.Contains(err.Error(), "fedbandit/mq2008-*/dataset") {
		t.Errorf("err = %v", err)
	}
}
