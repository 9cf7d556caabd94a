package version

import (
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFromBuild(t *testing.T) {
	t.Parallel()
	const rev = "f9120637bfddad0050b55ce834e8a5031b629f18"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.modified", Value: modified},
		}
	}
	tests := []struct {
		name     string
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install @version", "v0.2.0", nil, "v0.2.0"},
		{"checkout at the tag", "v0.2.0", vcs("false"), "v0.2.0+f9120637bfdd"},
		{"checkout at the tag, modified", "v0.2.0+dirty", vcs("true"), "v0.2.0+dirty.f9120637bfdd"},
		{"checkout past the tag", "v0.2.1-0.20261201204705-f9120637bfdd", vcs("false"), "v0.2.1-0.20261201204705-f9120637bfdd"},
		{"checkout past the tag, modified", "v0.2.1-0.20261201204705-f9120637bfdd+dirty", vcs("true"), "v0.2.1-0.20261201204705-f9120637bfdd+dirty"},
		{"no VCS stamp", "(devel)", nil, "v" + Release + "+devel"},
		{"no VCS stamp, a revision", "(devel)", vcs("true"), "v" + Release + "+devel.f9120637bfdd.dirty"},
		{"no build info", "", nil, "v" + Release + "+devel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, fromBuild(tt.main, tt.settings))
		})
	}
}

// TestString: a test binary has no module version, so it is named after
// Release.
func TestString(t *testing.T) {
	t.Parallel()
	assert.Regexp(t, `^v`+regexp.QuoteMeta(Release)+`\+devel`, String())
}
