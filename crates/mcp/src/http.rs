//! `mcursor mcp --http ADDR`: the same server over MCP's streamable HTTP transport
//! (rmcp's `StreamableHttpService`, on hyper), every session sharing one [`IndexServer`].
//!
//! Who may call: on a loopback address, anyone on this machine (rmcp also checks the
//! `Host` header against loopback names, which stops DNS-rebinding pages in a browser);
//! anywhere else only with a bearer token, which every request must carry
//! (`Authorization: Bearer TOKEN`, compared in constant time) or it is answered 401
//! before it reaches the protocol. A token, when set, is required on loopback too.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::{IndexServer, McpError, root_of, runtime};

/// The path MCP is served on.
pub const MCP_PATH: &str = "/mcp";

/// Serves the repository at (or above) `start` on `address` until the process is
/// stopped. `token`: the bearer token requests must carry; required unless `address` is
/// loopback. `ready` is called with the bound address (port 0 picks a free one).
pub fn serve_http(
    start: &Path,
    address: SocketAddr,
    token: Option<String>,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), McpError> {
    let token = token.filter(|t| !t.is_empty());
    if !address.ip().is_loopback() && token.is_none() {
        return Err(McpError::Refused(format!(
            "{address} is reachable from other machines: set MCURSOR_MCP_TOKEN to a secret \
             that clients send as `Authorization: Bearer TOKEN`, or listen on 127.0.0.1"
        )));
    }
    let root = root_of(start)?;
    runtime()?.block_on(async move {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|source| McpError::Bind { address, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| McpError::Bind { address, source })?;
        let server = IndexServer::new(root);
        tokio::spawn(server.clone().announce_generations());
        let mut config = StreamableHttpServerConfig::default();
        if !address.ip().is_loopback() {
            // Clients name this machine as they know it; the token is the check.
            config = config.disable_allowed_hosts();
        }
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let token: Option<Arc<str>> = token.map(Arc::from);
        ready(bound);
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                // Out of descriptors, a reset before accept...: the next one may work.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            };
            let service = service.clone();
            let token = token.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let service = service.clone();
                    let token = token.clone();
                    async move {
                        if !authorized(&request, token.as_deref()) {
                            return Ok::<_, std::convert::Infallible>(unauthorized());
                        }
                        if request.uri().path() != MCP_PATH {
                            return Ok(not_found());
                        }
                        let response = service.handle(request).await;
                        Ok(response.map(|body| body.boxed_unsync()))
                    }
                });
                // A client that goes away mid-request ends only its connection.
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
            });
        }
    })
}

type Body = http_body_util::combinators::UnsyncBoxBody<Bytes, std::convert::Infallible>;

/// Whether `request` may reach the server: always without a token, else only with
/// `Authorization: Bearer TOKEN`.
fn authorized(request: &Request<Incoming>, token: Option<&str>) -> bool {
    let Some(token) = token else {
        return true;
    };
    request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| constant_time_eq(given.trim().as_bytes(), token.as_bytes()))
}

/// Compares without stopping at the first difference, so response times do not say how
/// much of a guess was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed_unsync());
    *response.status_mut() = status;
    response
}

fn unauthorized() -> Response<Body> {
    let mut response = plain(
        StatusCode::UNAUTHORIZED,
        "a bearer token is required: Authorization: Bearer TOKEN\n",
    );
    response.headers_mut().insert(
        hyper::header::WWW_AUTHENTICATE,
        hyper::header::HeaderValue::from_static("Bearer"),
    );
    response
}

fn not_found() -> Response<Body> {
    plain(StatusCode::NOT_FOUND, "MCP is served on /mcp\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
    }

    #[test]
    fn a_public_address_without_a_token_is_refused() {
        let dir = std::env::temp_dir();
        let refused = serve_http(&dir, "0.0.0.0:0".parse().expect("addr"), None, |_| {});
        assert!(matches!(refused, Err(McpError::Refused(_))), "{refused:?}");
        let empty = serve_http(
            &dir,
            "0.0.0.0:0".parse().expect("addr"),
            Some(String::new()),
            |_| {},
        );
        assert!(matches!(empty, Err(McpError::Refused(_))));
    }
}
