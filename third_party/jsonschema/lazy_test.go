package jsonschema

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

// The drafts' metaschemas are compiled by the first Compile, not at init:
// a schema is still validated against its draft's metaschema, and
// concurrent first compilations all see the compiled drafts.
func TestDraftsCompiledOnFirstCompile(t *testing.T) {
	schemas := map[string]string{
		"draft-04": `{"$schema": "http://json-schema.org/draft-04/schema#", "type": 5}`,
		"draft-07": `{"$schema": "http://json-schema.org/draft-07/schema#", "type": 5}`,
		"2020-12":  `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": 5}`,
	}
	var wg sync.WaitGroup
	errs := make(map[string]error)
	var mu sync.Mutex
	for name, doc := range schemas {
		wg.Add(1)
		go func(name, doc string) {
			defer wg.Done()
			v, err := UnmarshalJSON(strings.NewReader(doc))
			if err != nil {
				t.Error(err)
				return
			}
			c := NewCompiler()
			if err := c.AddResource("schema.json", v); err != nil {
				t.Error(err)
				return
			}
			_, err = c.Compile("schema.json")
			mu.Lock()
			errs[name] = err
			mu.Unlock()
		}(name, doc)
	}
	wg.Wait()
	for name := range schemas {
		var sve *SchemaValidationError
		if !errors.As(errs[name], &sve) {
			t.Errorf("%s: a schema with \"type\": 5 compiled with error %v, want a SchemaValidationError from its metaschema", name, errs[name])
		}
	}
	if Draft7.sch == nil || Draft2020.allVocabs["applicator"] == nil {
		t.Fatal("the drafts were not compiled by the first Compile")
	}
}

func TestCompiledSchemaValidates(t *testing.T) {
	v, err := UnmarshalJSON(strings.NewReader(`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := NewCompiler()
	if err := c.AddResource("schema.json", v); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(map[string]any{"a": 1.0}); err != nil {
		t.Errorf("valid instance: %v", err)
	}
	var ve *ValidationError
	if err := sch.Validate(map[string]any{"b": 1.0}); !errors.As(err, &ve) {
		t.Errorf("instance without a: got %v, want a ValidationError", err)
	}
}
