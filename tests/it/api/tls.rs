//! https services: the binary verifies them against the platform's CA certificates, which it
//! reads at the first handshake (`SSL_CERT_FILE` names them here, as on any Linux), and a
//! plain-http service needs none. The certificates in `tests/fixtures/tls` are a test CA's,
//! valid until 2126, the key of the server's certificate and an impostor's key: they guard
//! nothing.

use crate::common::{self, Served, TOKEN};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::ResolvesServerCert;
use rustls::sign::CertifiedKey;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use tokio::net::{TcpListener, TcpStream};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tls")
        .join(name)
}

/// A TLS front on 127.0.0.1 presenting the test CA's certificate for 127.0.0.1 and signing with
/// `key` (the certificate's own, or another: an impostor's), forwarding each connection to
/// `upstream`; its base URL.
async fn tls_front(upstream: SocketAddr, key: &str) -> String {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(fixture("server.pem"))
        .expect("the server's certificate")
        .collect::<Result<_, _>>()
        .expect("the server's certificate");
    let key = PrivateKeyDer::from_pem_file(fixture(key)).expect("a key");
    let key = rustls::crypto::ring::sign::any_supported_type(&key).expect("a signing key");
    let presented = Arc::new(CertifiedKey::new(certs, key));
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(Presents(presented)));
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        for _ in 0..100 {
            let Ok((client, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(client).await else {
                    return;
                };
                let Ok(mut service) = TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut service).await;
            });
        }
    });
    format!("https://{addr}/")
}

/// One certificate and key for every handshake, whether or not they belong together.
#[derive(Debug)]
struct Presents(Arc<CertifiedKey>);

impl ResolvesServerCert for Presents {
    fn resolve(&self, _: rustls::server::ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// The reference service and a TLS front before it signing with `key`: the front's base URL.
fn behind_tls(key: &str) -> (Served, String) {
    let served = Served::new();
    let base = served.rt.block_on(tls_front(served.svc.addr, key));
    (served, base)
}

/// An empty directory of CA certificates, so that the machine's own are not read.
fn no_ca_dir(served: &Served) -> PathBuf {
    let dir = served.path().join("no-ca-dir");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `gendash --base-url BASE status demo-image-done` with the CA certificates of `ca_file` only.
fn status(served: &Served, base: &str, ca_file: &Path) -> Output {
    common::gendash(served.path())
        .env("GENDASH_TOKEN", TOKEN)
        .env("SSL_CERT_FILE", ca_file)
        .env("SSL_CERT_DIR", no_ca_dir(served))
        .args(["--base-url", base, "status", "demo-image-done"])
        .output()
        .unwrap()
}

/// `gendash doctor`'s line about the service at `base`, trusting the CA certificates of
/// `ca_file` only.
fn doctor_says(served: &Served, base: &str, ca_file: &Path) -> String {
    let out = common::gendash(served.path())
        .env("GENDASH_TOKEN", TOKEN)
        .env("GENDASH_BASE_URL", base)
        .env("SSL_CERT_FILE", ca_file)
        .env("SSL_CERT_DIR", no_ca_dir(served))
        .arg("doctor")
        .output()
        .unwrap();
    text(&out.stdout)
        .lines()
        .find(|l| l.contains("service:"))
        .unwrap_or_else(|| panic!("no service line: {out:?}"))
        .to_string()
}

/// How many times the service was asked about `demo-image-done`.
fn lookups(served: &Served) -> u64 {
    served.svc.stats()["tasks"]["demo-image-done"]["requests"]
        .as_u64()
        .unwrap_or(0)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn an_https_service_is_verified_against_the_platforms_ca_certificates() {
    let (served, https) = behind_tls("server.key");

    let trusted = status(&served, &https, &fixture("ca.pem"));
    assert!(trusted.status.success(), "{trusted:?}");
    assert!(text(&trusted.stdout).contains("COMPLETED"), "{trusted:?}");
    assert_eq!(lookups(&served), 1, "the lookup went through the TLS front");

    // Another CA signed nothing of this server's: the handshake fails, no request is sent.
    let untrusted = status(&served, &https, &fixture("other-ca.pem"));
    assert!(!untrusted.status.success(), "{untrusted:?}");
    let said = text(&untrusted.stderr);
    assert!(
        said.contains("cannot verify https://127.0.0.1:")
            && said.contains("UnknownIssuer")
            && said.contains("SSL_CERT_FILE")
            && !said.contains("is the service running"),
        "the error names the certificate and what is trusted: {said}"
    );
    assert_eq!(lookups(&served), 1, "nothing reached the service");
}

#[test]
fn an_http_service_needs_no_ca_certificates_and_https_says_they_are_missing() {
    let (served, https) = behind_tls("server.key");
    let none = served.path().join("no-such-ca-file.pem");

    let http = status(&served, &served.base, &none);
    assert!(http.status.success(), "{http:?}");
    assert!(text(&http.stdout).contains("COMPLETED"), "{http:?}");

    let refused = status(&served, &https, &none);
    assert!(!refused.status.success(), "{refused:?}");
    let said = text(&refused.stderr);
    assert!(
        said.contains("cannot verify https://127.0.0.1:")
            && said.contains("CA certificates could not be read")
            && said.contains("SSL_CERT_FILE"),
        "the error says which certificates are missing and how to name them: {said}"
    );
    assert_eq!(
        lookups(&served),
        1,
        "only the http lookup reached the service"
    );
}

#[test]
fn a_server_without_its_certificates_key_is_refused() {
    let (served, impostor) = behind_tls("impostor.key");
    let refused = status(&served, &impostor, &fixture("ca.pem"));
    assert!(!refused.status.success(), "{refused:?}");
    assert!(
        text(&refused.stderr).contains("cannot verify https://127.0.0.1:"),
        "{refused:?}"
    );
    assert_eq!(lookups(&served), 0, "nothing reached the service");
}

#[test]
fn doctor_says_whether_the_service_s_certificate_is_trusted_and_how_to_trust_it() {
    let (served, https) = behind_tls("server.key");
    let trusted = doctor_says(&served, &https, &fixture("ca.pem"));
    assert!(
        trusted.starts_with("ok") && trusted.contains("reachable, token accepted"),
        "{trusted}"
    );
    let untrusted = doctor_says(&served, &https, &fixture("other-ca.pem"));
    assert!(
        untrusted.starts_with("problem")
            && untrusted.contains("cannot verify https://127.0.0.1:")
            && untrusted.contains("→ trust the service's CA: SSL_CERT_FILE="),
        "{untrusted}"
    );
}
