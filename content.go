package toolexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Content is one MCP content block of a tool result: *TextContent,
// *ImageContent, *AudioContent, *ResourceLink or *EmbeddedResource.
//
// The set is closed, as it is in the MCP specification (2025-11-25): each
// type marshals with its "type" discriminator, and UnmarshalContent reads
// any of them back. Optional fields are omitted from the JSON, never null.
type Content interface {
	// ContentType reports the block's "type" discriminator, such as "text".
	ContentType() string
	isContent()
}

// Role names who a piece of content is meant for, in Annotations.Audience.
type Role string

// The roles MCP defines.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations are optional hints about one content block of a result (who
// it is for, how important it is), which a client may use to decide how to
// show or use it; ToolAnnotations, not these, describe a tool. Priority is a pointer because 0 is a meaningful value
// distinct from "not set".
type Annotations struct {
	// Audience says who the block is for: the user, the model, or both.
	Audience []Role `json:"audience,omitempty"`
	// Priority ranks the block from 0 (least important) to 1 (essential).
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is when the content last changed, as an ISO 8601 string.
	LastModified string `json:"lastModified,omitempty"`
}

// TextContent is a block of plain text: {"type":"text","text":"..."}.
type TextContent struct {
	// Text is the block's text, written as "text" (always, even empty).
	Text string
	// Annotations are optional hints for the client; nil omits them.
	Annotations *Annotations
	// Meta is the block's _meta object; nil omits it.
	Meta map[string]any
}

// ImageContent is an image: Data holds the raw bytes, which travel
// base64-encoded in the "data" field, with MIMEType in "mimeType".
type ImageContent struct {
	// Data is the image's raw bytes; the JSON carries them in base64.
	Data []byte
	// MIMEType is the image's type, such as "image/png".
	MIMEType string
	// Annotations are optional hints for the client; nil omits them.
	Annotations *Annotations
	// Meta is the block's _meta object; nil omits it.
	Meta map[string]any
}

// AudioContent is an audio clip, encoded like ImageContent.
type AudioContent struct {
	// Data is the clip's raw bytes; the JSON carries them in base64.
	Data []byte
	// MIMEType is the clip's type, such as "audio/wav".
	MIMEType string
	// Annotations are optional hints for the client; nil omits them.
	Annotations *Annotations
	// Meta is the block's _meta object; nil omits it.
	Meta map[string]any
}

// ResourceLink points at a resource the client may fetch by URI:
// {"type":"resource_link","uri":"...","name":"..."}.
type ResourceLink struct {
	// URI locates the resource.
	URI string
	// Name is the resource's programmatic name (required by MCP).
	Name string
	// Title is an optional human-readable name.
	Title string
	// Description says what the resource is, when set.
	Description string
	// MIMEType is the resource's type, when known.
	MIMEType string
	// Size is the resource's size in bytes, when known.
	Size *int64
	// Annotations are optional hints for the client; nil omits them.
	Annotations *Annotations
	// Meta is the block's _meta object; nil omits it.
	Meta map[string]any
}

// EmbeddedResource carries a resource's contents inside the result:
// {"type":"resource","resource":{...}}.
type EmbeddedResource struct {
	// Resource holds the contents; it must not be nil.
	Resource *ResourceContents
	// Annotations are optional hints for the client; nil omits them.
	Annotations *Annotations
	// Meta is the block's _meta object; nil omits it.
	Meta map[string]any
}

// ResourceContents is the body of an EmbeddedResource. It is a text resource
// ("text" is always written, even when empty) unless Blob is non-nil, in
// which case it is a binary resource with base64 "blob".
type ResourceContents struct {
	// URI identifies the resource.
	URI string
	// MIMEType is the contents' type, when known.
	MIMEType string
	// Text is the contents of a text resource.
	Text string
	// Blob is the contents of a binary resource; non-nil makes it one.
	Blob []byte
	// Meta is the contents' _meta object; nil omits it.
	Meta map[string]any
}

// Text returns a TextContent holding s: the most common content block.
func Text(s string) *TextContent { return &TextContent{Text: s} }

// ContentType implements Content.
func (*TextContent) ContentType() string { return "text" }

// ContentType implements Content.
func (*ImageContent) ContentType() string { return "image" }

// ContentType implements Content.
func (*AudioContent) ContentType() string { return "audio" }

// ContentType implements Content.
func (*ResourceLink) ContentType() string { return "resource_link" }

// ContentType implements Content.
func (*EmbeddedResource) ContentType() string { return "resource" }

func (*TextContent) isContent()      {}
func (*ImageContent) isContent()     {}
func (*AudioContent) isContent()     {}
func (*ResourceLink) isContent()     {}
func (*EmbeddedResource) isContent() {}

// The wire structs below fix field names, order and omission rules; the
// public structs stay free of JSON plumbing such as the discriminator.

type textWire struct {
	Type        string         `json:"type"`
	Text        string         `json:"text"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type mediaWire struct {
	Type        string         `json:"type"`
	Data        []byte         `json:"data"`
	MIMEType    string         `json:"mimeType"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type resourceLinkWire struct {
	Type        string         `json:"type"`
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MIMEType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type embeddedWire struct {
	Type        string            `json:"type"`
	Resource    *ResourceContents `json:"resource"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        map[string]any    `json:"_meta,omitempty"`
}

type resourceContentsWire struct {
	URI      string         `json:"uri"`
	MIMEType string         `json:"mimeType,omitempty"`
	Text     *string        `json:"text,omitempty"`
	Blob     []byte         `json:"blob,omitempty"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON writes {"type":"text","text":...}.
func (c TextContent) MarshalJSON() ([]byte, error) {
	return json.Marshal(textWire{"text", c.Text, c.Annotations, c.Meta})
}

// UnmarshalJSON reads a text block.
func (c *TextContent) UnmarshalJSON(data []byte) error {
	var w textWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*c = TextContent{Text: w.Text, Annotations: w.Annotations, Meta: w.Meta}
	return nil
}

// MarshalJSON writes {"type":"image","data":base64,"mimeType":...}.
func (c ImageContent) MarshalJSON() ([]byte, error) {
	return json.Marshal(mediaWire{"image", nonNilBytes(c.Data), c.MIMEType, c.Annotations, c.Meta})
}

// UnmarshalJSON reads an image block; "data" must be valid base64.
func (c *ImageContent) UnmarshalJSON(data []byte) error {
	var w mediaWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*c = ImageContent{Data: w.Data, MIMEType: w.MIMEType, Annotations: w.Annotations, Meta: w.Meta}
	return nil
}

// MarshalJSON writes {"type":"audio","data":base64,"mimeType":...}.
func (c AudioContent) MarshalJSON() ([]byte, error) {
	return json.Marshal(mediaWire{"audio", nonNilBytes(c.Data), c.MIMEType, c.Annotations, c.Meta})
}

// UnmarshalJSON reads an audio block; "data" must be valid base64.
func (c *AudioContent) UnmarshalJSON(data []byte) error {
	var w mediaWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*c = AudioContent{Data: w.Data, MIMEType: w.MIMEType, Annotations: w.Annotations, Meta: w.Meta}
	return nil
}

// MarshalJSON writes {"type":"resource_link","uri":...,"name":...}.
func (c ResourceLink) MarshalJSON() ([]byte, error) {
	return json.Marshal(resourceLinkWire{"resource_link", c.URI, c.Name, c.Title, c.Description, c.MIMEType, c.Size, c.Annotations, c.Meta})
}

// UnmarshalJSON reads a resource_link block.
func (c *ResourceLink) UnmarshalJSON(data []byte) error {
	var w resourceLinkWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*c = ResourceLink{URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description,
		MIMEType: w.MIMEType, Size: w.Size, Annotations: w.Annotations, Meta: w.Meta}
	return nil
}

// MarshalJSON writes {"type":"resource","resource":{...}}.
func (c EmbeddedResource) MarshalJSON() ([]byte, error) {
	return json.Marshal(embeddedWire{"resource", c.Resource, c.Annotations, c.Meta})
}

// UnmarshalJSON reads an embedded resource block.
func (c *EmbeddedResource) UnmarshalJSON(data []byte) error {
	var w embeddedWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.Resource == nil {
		return errors.New(`toolexec: embedded resource without "resource"`)
	}
	*c = EmbeddedResource{Resource: w.Resource, Annotations: w.Annotations, Meta: w.Meta}
	return nil
}

// MarshalJSON writes a text resource ("text" always present) or, when Blob
// is non-nil, a binary one ("blob" in base64).
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	w := resourceContentsWire{URI: r.URI, MIMEType: r.MIMEType, Meta: r.Meta}
	if r.Blob != nil {
		w.Blob = r.Blob
	} else {
		w.Text = &r.Text
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a text or blob resource; exactly one of "text" and
// "blob" must be present.
func (r *ResourceContents) UnmarshalJSON(data []byte) error {
	var w resourceContentsWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if (w.Text == nil) == (w.Blob == nil) {
		return errors.New(`toolexec: resource contents need exactly one of "text" and "blob"`)
	}
	*r = ResourceContents{URI: w.URI, MIMEType: w.MIMEType, Blob: w.Blob, Meta: w.Meta}
	if w.Text != nil {
		r.Text = *w.Text
	}
	return nil
}

// UnmarshalContent decodes one content block, choosing the Go type by the
// block's "type" field. An unknown or missing type is an error.
func UnmarshalContent(data []byte) (Content, error) {
	var probe struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, err
	}
	var c Content
	switch probe.Type {
	case "text":
		c = new(TextContent)
	case "image":
		c = new(ImageContent)
	case "audio":
		c = new(AudioContent)
	case "resource_link":
		c = new(ResourceLink)
	case "resource":
		c = new(EmbeddedResource)
	default:
		return nil, fmt.Errorf("toolexec: unknown content type %q", probe.Type)
	}
	if err := json.Unmarshal(data, c); err != nil {
		return nil, err
	}
	return c, nil
}

func unmarshalContents(data []byte) ([]Content, error) {
	if t := bytes.TrimSpace(data); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, nil // absent or null: no content
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, err
	}
	out := make([]Content, 0, len(raws))
	for i, raw := range raws {
		c, err := UnmarshalContent(raw)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// nonNilBytes keeps an empty image as "data":"" rather than "data":null.
func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
