package version

import (
	"os"
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestString: the running binary's version is composed from its own build
// info (a test binary has no module version unless VCS stamping is forced,
// so it is usually v<Release>+devel).
func TestString(t *testing.T) {
	t.Parallel()
	info, ok := debug.ReadBuildInfo()
	require.True(t, ok)
	assert.Equal(t, fromBuild(info.Main.Version, info.Settings), String())
	assert.Regexp(t, `^v\d+\.\d+\.\d+`, String())
}

// TestReleaseIsTheChangelogsTop keeps Release and CHANGELOG.md's newest
// release ("## 0.2.0 - date") the same release. An "## Unreleased" entry
// above it gathers what the next release will hold; it may come first, and
// only first.
func TestReleaseIsTheChangelogsTop(t *testing.T) {
	t.Parallel()
	log, err := os.ReadFile("../../CHANGELOG.md")
	require.NoError(t, err)
	entries := regexp.MustCompile(`(?m)^## (\S+)`).FindAllSubmatch(log, -1)
	if len(entries) > 0 && string(entries[0][1]) == "Unreleased" {
		entries = entries[1:]
	}
	require.NotEmpty(t, entries, "CHANGELOG.md has no \"## <version>\" entry")
	assert.Equal(t, Release, string(entries[0][1]))
	for _, e := range entries {
		assert.NotEqual(t, "Unreleased", string(e[1]), "an Unreleased entry below a release")
	}
}
