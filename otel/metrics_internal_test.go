package toolexecotel

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec"
)

func TestMetricAttributeSetsAreBounded(t *testing.T) {
	var sets measurements
	for i := 0; i < maxMeasurements+10; i++ {
		sets.get(metricKey{surface: toolexec.SurfaceGo, name: fmt.Sprint("tool-", i)})
	}
	assert.Equal(t, maxMeasurements, len(sets.sets))
}
