//! How https services are verified: the platform's certificate authorities, read at the first
//! https handshake of the process rather than when an HTTP client is built.
//!
//! reqwest's own configuration reads every CA certificate of the system (on Linux the bundle
//! and each file of `/etc/ssl/certs`) each time a client is built: 4.3 ms of the 6.8 ms of CPU a
//! `gendash status` against an http service cost, twice over in a dashboard (the service's
//! client and the downloads'), and on a system with no CA certificates no client could be built
//! at all, for http services neither. Verification itself is the platform verifier's, unchanged.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, Error, SignatureScheme};
use rustls_platform_verifier::Verifier;
use std::sync::{Arc, LazyLock, OnceLock};

/// The TLS configuration of every HTTP client of the process (cloning it shares the verifier,
/// so the certificates are read once per process).
pub fn client_config() -> ClientConfig {
    static CONFIG: LazyLock<ClientConfig> = LazyLock::new(|| {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = Arc::new(PlatformOnFirstUse::new(provider.clone()));
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring supports TLS 1.2 and 1.3")
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        // What reqwest offers when it builds the configuration itself (HTTP/1.1 only).
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        config
    });
    CONFIG.clone()
}

/// The platform verifier, made on the first certificate it is asked about.
#[derive(Debug)]
struct PlatformOnFirstUse {
    provider: Arc<CryptoProvider>,
    made: OnceLock<Result<Verifier, Error>>,
}

impl PlatformOnFirstUse {
    fn new(provider: Arc<CryptoProvider>) -> Self {
        PlatformOnFirstUse {
            provider,
            made: OnceLock::new(),
        }
    }

    fn verifier(&self) -> Result<&Verifier, Error> {
        self.made
            .get_or_init(|| {
                Verifier::new(self.provider.clone()).map_err(|e| {
                    let why = match e {
                        Error::General(why) => why,
                        other => other.to_string(),
                    };
                    Error::General(format!(
                        "the system's CA certificates could not be read ({why}); install them \
                         (the ca-certificates package)"
                    ))
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ServerCertVerifier for PlatformOnFirstUse {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        self.verifier()?.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.verifier()?.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.verifier()?.verify_tls13_signature(message, cert, dss)
    }

    /// Asked when a handshake starts, before any certificate: the provider's schemes, which
    /// are the platform verifier's, without reading the certificates.
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schemes_offered_are_the_platform_verifiers() {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let lazy = PlatformOnFirstUse::new(provider.clone());
        let offered = lazy.supported_verify_schemes();
        assert!(
            lazy.made.get().is_none(),
            "asking for the schemes read the certificates"
        );
        let platform = Verifier::new(provider).expect("this machine has CA certificates");
        assert_eq!(offered, platform.supported_verify_schemes());
    }
}
