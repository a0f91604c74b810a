module github.com/toolexec/toolexec/interop/openapi

go 1.26.0

replace github.com/toolexec/toolexec => ../../

require (
	github.com/stretchr/testify v1.12.1
	github.com/toolexec/toolexec v0.0.0-00010101000000-000000000000
)

require (
	github.com/go-chi/chi/v5 v5.5.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/mod v0.30.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
