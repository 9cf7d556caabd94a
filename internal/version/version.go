// Package version names the build of loom-results that is running: the one
// string that `loom-results --version` prints and the MCP handshake reports
// as serverInfo.version.
package version

import (
	"runtime/debug"
	"strings"
)

// Release is the last release whose changes this source tree holds: the top
// release of CHANGELOG.md, below its Unreleased entry if it has one (a test
// keeps the two equal). It names builds that
// carry no module version, such as go run or a build with -buildvcs=false.
const Release = "0.2.0"

// String returns the running build's version.
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fromBuild("", nil)
	}
	return fromBuild(info.Main.Version, info.Settings)
}

// fromBuild composes the version from the main module's version and the
// build settings that go build records:
//
//   - go install ...@v0.2.0 records v0.2.0 and no VCS settings: v0.2.0.
//   - go build in a git checkout records a version derived from the
//     repository (a tag, or a pseudo-version that already holds the
//     revision, with +dirty when files were modified) and the revision.
//     A revision that the version does not show is added as build metadata:
//     v0.2.0+f9120637bfdd when HEAD carries the tag.
//   - Without VCS stamping (go run, -buildvcs=false, a tree outside git) the
//     version is "(devel)", which says nothing about the source; the build
//     is then named after Release: v0.2.0+devel.
//
// Build metadata (after "+") does not change which release a version is,
// so each of these still orders as the release it is built from.
func fromBuild(main string, settings []debug.BuildSetting) string {
	var rev string
	modified := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12] // as pseudo-versions show it
	}
	var meta []string
	if main == "" || main == "(devel)" {
		main = "v" + Release
		meta = append(meta, "devel")
	}
	core, built, _ := strings.Cut(main, "+")
	if built != "" {
		meta = append(meta, built)
	}
	if rev != "" && !strings.Contains(core, rev) {
		meta = append(meta, rev)
		if modified && !strings.Contains(built, "dirty") {
			meta = append(meta, "dirty")
		}
	}
	if len(meta) == 0 {
		return core
	}
	return core + "+" + strings.Join(meta, ".")
}
