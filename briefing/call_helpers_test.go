package briefing

import (
	"context"
	"reflect"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
)

// The helpers below run a request built by a test, not decoded, as OpOf
// runs one once the binder has bound it.

// rawOf is a Raw of the JSON value v, indexed as jsonSub indexes it.
func rawOf[T any, S ~string | ~[]byte](v S) *Raw[T] {
	return &Raw[T]{Sub: jsonSub(v)}
}

// writeFile runs write_file's request: a refused step, its checks, the
// write.
func writeFile(b *Briefing, req WriteFileRequest) (*Written, *errcode.Error) {
	if err := b.budget.CheckEdit(); err != nil {
		return nil, err
	}
	if err := req.check(b); err != nil {
		return nil, err
	}
	return req.run(context.Background(), b, Call{})
}

// expandEdit runs expand_edit with args as its arguments member, bound
// by the binder as a call's is, then its checks and resolution, without
// the step's check that comes first.
func expandEdit(b *Briefing, args jsontape.Sub) (*Expanded, *errcode.Error) {
	var req ExpandEditRequest
	plan := planOf(reflect.TypeFor[ExpandEditRequest](), "argument")
	if err := (binder{ix: args.Index, kind: plan.kind}).field(reflect.ValueOf(&req).Elem().Field(0), plan.args[0], plan.how[0], plan.elem[0], args.Node); err != nil {
		return nil, err
	}
	if err := req.check(b); err != nil {
		return nil, err
	}
	return req.run(context.Background(), b, Call{})
}

// runCommand runs the command name, with no progress reported.
func runCommand(b *Briefing, name string, progress func(Progress)) (*Ran, *errcode.Error) {
	req := RunRequest{Name: name}
	if err := req.check(b); err != nil {
		return nil, err
	}
	return req.run(context.Background(), b, Call{Progress: progress})
}
