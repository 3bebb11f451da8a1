//! `GET /openapi.json`: the contract the reference service implements, as an `OpenAPI` 3.1
//! document, so an outside tester (`bash .ci/conformance` runs schemathesis) can hold the
//! service to it. It describes what the handlers in `server` really answer: the spec's three
//! POST operations with their bearer token, the success and failure envelopes, `400` for a bad
//! `type`, `401` without the token, `405` for another method; and the token-free file route.
//! Where the spec is silent (failure shapes, status codes) the document follows the service.

use serde_json::{Value, json};

/// The document for a service whose routes sit under `prefix` (`""` for none, else `/a/b`):
/// the prefix is the `servers` URL, relative to where the document was fetched.
pub fn document(prefix: &str) -> Value {
    let server = if prefix.is_empty() { "/" } else { prefix };
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Generation Service (gendash reference service)",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "LoRA model listing and the results of image and video generation \
                tasks, as the Generation Service Interface specifies them, implemented by \
                `gendash serve`. Every operation but the file downloads requires \
                `Authorization: Bearer <token>`. This document is at `openapi.json` under the \
                server URL, served without a token; `lora` without the slash is the same \
                operation as `lora/`; any other path answers 404 with the failure envelope."
        },
        "servers": [{"url": server}],
        "security": [{"bearer": []}],
        "paths": {
            "/lora/": lora_path(),
            "/ai/image_generation/{task_id}": result_path(
                "getImageResult",
                "Status and result of an image generation task",
                "#/components/schemas/ImageResultEnvelope",
                "image",
            ),
            "/ai/video_generation/{task_id}": result_path(
                "getVideoResult",
                "Status and result of a video generation task",
                "#/components/schemas/VideoResultEnvelope",
                "video",
            ),
            "/files/{name}": files_path()
        },
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The service's access token (`gendash serve --token`)."
                }
            },
            "responses": {
                "Unauthorized": {
                    "description": "No `Authorization: Bearer` header, or the wrong token.",
                    "headers": {
                        "WWW-Authenticate": {
                            "required": true,
                            "schema": {"type": "string", "const": "Bearer"}
                        }
                    },
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Failure"}}}
                },
                "TooManyRequests": {
                    "description": "Over the service's capacity (`gendash serve --capacity N`: \
                        more than N requests in a second); `Retry-After` says in how many \
                        seconds to ask again.",
                    "headers": {
                        "Retry-After": {
                            "required": true,
                            "schema": {"type": "string", "pattern": "^[1-9][0-9]*$"}
                        }
                    },
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Failure"}}}
                },
                "MethodNotAllowed": {
                    "description": "Any other method than the documented ones on this path; \
                        `Allow` lists those. No body.",
                    "headers": {"Allow": {"required": true, "schema": {"type": "string"}}}
                }
            },
            "schemas": schemas()
        }
    })
}

/// `POST /lora/`: the catalogue, filtered by `type` and `cate`.
fn lora_path() -> Value {
    json!({
        "post": {
            "operationId": "listLoras",
            "summary": "List LoRA models, optionally filtered by type and category",
            "parameters": [
                {
                    "name": "type", "in": "query", "required": false,
                    "description": "Base-model type; omitted: every type. Any other \
                        value, the empty one included, is refused with 400.",
                    "schema": {"type": "string", "enum": ["sd", "sdxl"]},
                    "example": "sdxl"
                },
                {
                    "name": "cate", "in": "query", "required": false,
                    "description": "Catalogue category (case-insensitive); omitted or \
                        empty: every category. An unknown one lists nothing.",
                    "schema": {"type": "string"},
                    "example": "style"
                }
            ],
            "responses": {
                "200": json_response("The matching entries (possibly none).", "#/components/schemas/LoraList"),
                "400": json_response("`type` is neither `sd` nor `sdxl`.", "#/components/schemas/Failure"),
                "401": {"$ref": "#/components/responses/Unauthorized"},
                "405": {"$ref": "#/components/responses/MethodNotAllowed"},
                "429": {"$ref": "#/components/responses/TooManyRequests"}
            }
        }
    })
}

/// The token-free file route, `GET` and `HEAD`, with byte ranges.
fn files_path() -> Value {
    json!({
        "parameters": [
            {
                "name": "name", "in": "path", "required": true,
                "description": "`<task_id>.png` of a completed image task or \
                    `<task_id>.mp4` of a completed video task (the last segment of \
                    its `url_download`).",
                "schema": {"type": "string", "minLength": 1},
                "examples": {
                    "image": {"value": "demo-image-done.png"},
                    "video": {"value": "demo-video-done.mp4"}
                }
            },
            {
                "name": "Range", "in": "header", "required": false,
                "description": "One byte range (`bytes=N-`, `bytes=N-M`, `bytes=-S`); \
                    anything else gets the whole file.",
                "schema": {"type": "string"},
                "example": "bytes=100-"
            },
            {
                "name": "If-Range", "in": "header", "required": false,
                "description": "The file's `ETag` or `Last-Modified`; any other value \
                    gets the whole file.",
                "schema": {"type": "string"}
            }
        ],
        "get": file_operation("getFile", "Download a generated file"),
        "head": file_operation("headFile", "The headers of a generated file's download")
    })
}

fn json_response(description: &str, schema: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": schema}}}
    })
}

fn result_path(operation_id: &str, summary: &str, envelope: &str, kind: &str) -> Value {
    json!({
        "post": {
            "operationId": operation_id,
            "summary": summary,
            "parameters": [{
                "name": "task_id", "in": "path", "required": true,
                "description": "Unique task ID. The reference service knows `demo-image-done`, \
                    `demo-video-done`, and starts `sim-<N>-…`, `fail-<N>-…`, `hold-…`, \
                    `timed-<S>-…` and `queued-<S>-…` on their first lookup. The IDs starting \
                    `http-<code>-` and `garbage-` answer as a faulty service does, outside this \
                    document, to test a client.",
                "schema": {"type": "string", "minLength": 1},
                "examples": {
                    "completed": {"value": format!("demo-{kind}-done")},
                    "running": {"value": "sim-3-conformance"},
                    "unknown": {"value": "no-such-task"}
                }
            }],
            "responses": {
                "200": {
                    "description": "The task's result, or (`data.is_success` false, `status` \
                        \"failed\") why there is none: an unknown ID, or a task of the other kind.",
                    "content": {"application/json": {"schema": {"oneOf": [
                        {"$ref": envelope},
                        {"$ref": "#/components/schemas/LookupFailure"}
                    ]}}}
                },
                "401": {"$ref": "#/components/responses/Unauthorized"},
                "405": {"$ref": "#/components/responses/MethodNotAllowed"},
                "429": {"$ref": "#/components/responses/TooManyRequests"}
            }
        }
    })
}

fn file_operation(operation_id: &str, summary: &str) -> Value {
    let file_headers = json!({
        "Accept-Ranges": {"schema": {"type": "string", "const": "bytes"}},
        "ETag": {"required": true, "schema": {"type": "string"}},
        "Last-Modified": {"required": true, "schema": {"type": "string"}}
    });
    let mut partial_headers = file_headers.clone();
    partial_headers["Content-Range"] = json!({
        "required": true,
        "schema": {"type": "string", "pattern": "^bytes [0-9]+-[0-9]+/[0-9]+$"}
    });
    let binary = json!({
        "image/png": {"schema": {"type": "string", "contentMediaType": "image/png"}},
        "video/mp4": {"schema": {"type": "string", "contentMediaType": "video/mp4"}}
    });
    json!({
        "operationId": operation_id,
        "summary": summary,
        "security": [],
        "responses": {
            "200": {"description": "The whole file.", "headers": file_headers, "content": binary},
            "206": {"description": "The range asked for.", "headers": partial_headers, "content": binary},
            "404": json_response(
                "No completed task of that kind has that file.",
                "#/components/schemas/Failure",
            ),
            "416": {
                "description": "The range starts past the end of the file. No body.",
                "headers": {"Content-Range": {
                    "required": true,
                    "schema": {"type": "string", "pattern": "^bytes \\*/[0-9]+$"}
                }}
            },
            "405": {"$ref": "#/components/responses/MethodNotAllowed"}
        }
    })
}

fn task_result(extension: &str) -> Value {
    json!({
        "type": "object",
        "description": "Spec 2.2.",
        "required": ["task_id", "total_tasks", "percent", "status", "url_download"],
        "properties": {
            "task_id": {"type": "string", "description": "As passed in the path."},
            "total_tasks": {"type": "integer", "minimum": 1},
            "percent": {"type": "integer", "minimum": 0, "maximum": 100},
            "status": {
                "type": "string",
                "description": "COMPLETED (with percent 100) when done; the reference service \
                    also reports QUEUED, IN_PROGRESS and FAILED."
            },
            "url_download": {
                "type": "string",
                "description": format!("The generated file, `<task_id>.{extension}`; empty \
                    until the task is COMPLETED."),
                "pattern": format!("^(|https?://.+\\.{extension})$")
            }
        }
    })
}

fn result_envelope(result: &str) -> Value {
    json!({
        "type": "object",
        "description": "Spec 2.3, on success.",
        "required": [
            "data", "errors", "error_description", "start_time", "end_time",
            "host_of_client_call_request", "total_time_by_second", "status"
        ],
        "properties": {
            "data": {
                "type": "object",
                "required": ["is_success", "data"],
                "properties": {
                    "is_success": {"type": "boolean", "const": true},
                    "data": {"$ref": result}
                }
            },
            "errors": {"type": "array", "maxItems": 0},
            "error_description": {"type": "string", "const": ""},
            "start_time": {"$ref": "#/components/schemas/Timestamp"},
            "end_time": {"$ref": "#/components/schemas/Timestamp"},
            "host_of_client_call_request": {"type": "string"},
            "total_time_by_second": {"type": "number", "minimum": 0},
            "status": {"type": "string", "const": "success"}
        }
    })
}

fn schemas() -> Value {
    json!({
        "LoraEntry": {
            "type": "object",
            "description": "Spec 2.1.",
            "required": ["model", "metadata"],
            "properties": {
                "model": {"type": "string"},
                "metadata": {
                    "type": "object",
                    "required": ["source"],
                    "properties": {"source": {"type": "string"}},
                    "additionalProperties": true
                }
            }
        },
        "LoraList": {
            "type": "object",
            "description": "Spec 2.4: `data` and nothing else.",
            "required": ["data"],
            "properties": {
                "data": {"type": "array", "items": {"$ref": "#/components/schemas/LoraEntry"}}
            },
            "additionalProperties": false
        },
        "Timestamp": {
            "type": "string",
            "description": "YYYY-MM-DD HH:MM:SS.ffffff, UTC, no time-zone marker.",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}$"
        },
        "ImageResult": task_result("png"),
        "VideoResult": task_result("mp4"),
        "ImageResultEnvelope": result_envelope("#/components/schemas/ImageResult"),
        "VideoResultEnvelope": result_envelope("#/components/schemas/VideoResult"),
        "Error": {
            "type": "object",
            "required": ["code"],
            "properties": {
                "code": {"type": "string", "description": "Machine-readable, e.g. `unauthorized`, \
                    `bad_type`, `not_found`, `task_not_found`, `wrong_kind`, `capacity`, `rate_limited`."},
                "message": {"type": "string"}
            }
        },
        "Failure": {
            "type": "object",
            "description": "The failure envelope: spec 7's `errors`, `error_description` and \
                `status`, filled in.",
            "required": ["errors", "error_description", "status"],
            "properties": {
                "errors": {
                    "type": "array",
                    "minItems": 1,
                    "items": {"$ref": "#/components/schemas/Error"}
                },
                "error_description": {"type": "string", "minLength": 1},
                "status": {"type": "string", "const": "failed"}
            }
        },
        "LookupFailure": {
            "description": "A result operation's failure envelope: the task is unknown, of the \
                other kind, or the service is full. The envelope of spec 2.3 with \
                `data.is_success` false and an empty `data.data`.",
            "allOf": [
                {"$ref": "#/components/schemas/Failure"},
                {
                    "type": "object",
                    "required": [
                        "data", "start_time", "end_time", "host_of_client_call_request",
                        "total_time_by_second"
                    ],
                    "properties": {
                        "data": {
                            "type": "object",
                            "required": ["is_success", "data"],
                            "properties": {
                                "is_success": {"type": "boolean", "const": false},
                                "data": {"type": "object", "maxProperties": 0}
                            }
                        },
                        "start_time": {"$ref": "#/components/schemas/Timestamp"},
                        "end_time": {"$ref": "#/components/schemas/Timestamp"},
                        "host_of_client_call_request": {"type": "string"},
                        "total_time_by_second": {"type": "number", "minimum": 0}
                    }
                }
            ]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `$ref` in the document points at something the document defines.
    #[test]
    fn every_reference_resolves() {
        fn walk(v: &Value, doc: &Value, seen: &mut usize) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        let pointer = r.strip_prefix('#').expect("local reference");
                        assert!(doc.pointer(pointer).is_some(), "{r} resolves");
                        *seen += 1;
                    }
                    m.values().for_each(|x| walk(x, doc, seen));
                }
                Value::Array(a) => a.iter().for_each(|x| walk(x, doc, seen)),
                _ => {}
            }
        }
        let doc = document("/api/v1");
        let mut seen = 0;
        walk(&doc, &doc, &mut seen);
        assert!(seen > 10);
        assert_eq!(doc["servers"][0]["url"], "/api/v1");
        assert_eq!(document("")["servers"][0]["url"], "/");
    }
}
