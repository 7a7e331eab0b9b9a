package dev.parquetlookup.io.s3;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.signer.AwsS3V4Signer;
import software.amazon.awssdk.auth.signer.params.AwsS3V4SignerParams;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.regions.Region;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link S3GetSigner} gives the signature the AWS SDK's own S3 signer ({@link AwsS3V4Signer}, SigV4
 * with the payload's SHA-256) gives the same GET at the same instant, with and without a session
 * token, and its caches (the signing key per day, region and secret, the date per second, the
 * thread's {@code Mac} and {@code MessageDigest}) change nothing: a signer that signed other
 * requests first, on other days and with another secret, signs like a fresh one.
 */
class S3GetSignerTest {

    private static final String ACCESS = "AKIAIOSFODNN7EXAMPLE";
    private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private static final Instant AT = Instant.parse("2013-05-24T00:00:00Z");

    private static String sdkAuthorization(
            String host, String path, Instant at, String sessionToken) {
        SdkHttpFullRequest request =
                SdkHttpFullRequest.builder()
                        .method(SdkHttpMethod.GET)
                        .protocol("https")
                        .host(host)
                        .encodedPath(path)
                        .build();
        SdkHttpFullRequest signed =
                AwsS3V4Signer.create()
                        .sign(
                                request,
                                AwsS3V4SignerParams.builder()
                                        .awsCredentials(
                                                sessionToken == null
                                                        ? AwsBasicCredentials.create(ACCESS, SECRET)
                                                        : AwsSessionCredentials.create(
                                                                ACCESS, SECRET, sessionToken))
                                        .signingName("s3")
                                        .doubleUrlEncode(false) // S3 encodes paths once
                                        .signingRegion(Region.US_EAST_1)
                                        .enablePayloadSigning(true)
                                        .signingClockOverride(Clock.fixed(at, ZoneOffset.UTC))
                                        .build());
        assertThat(signed.firstMatchingHeader("x-amz-content-sha256"))
                .contains(S3GetSigner.EMPTY_SHA256);
        return signed.firstMatchingHeader("Authorization").orElseThrow();
    }

    @Test
    void signsAsTheSdksS3SignerDoes() {
        S3GetSigner signer = new S3GetSigner("us-east-1");
        String path = S3GetSigner.encodePath("/examplebucket/dir with space/test.txt");
        assertThat(path).isEqualTo("/examplebucket/dir%20with%20space/test.txt");
        S3GetSigner.Signed s = signer.sign("s3.amazonaws.com", path, ACCESS, SECRET, null, AT);
        assertThat(s.amzDate()).isEqualTo("20130524T000000Z");
        assertThat(s.authorization())
                .startsWith(
                        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
                                + "aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
                                + " Signature=")
                .isEqualTo(sdkAuthorization("s3.amazonaws.com", path, AT, null));

        S3GetSigner.Signed session =
                signer.sign("s3.amazonaws.com", path, ACCESS, SECRET, "token/+=", AT);
        assertThat(session.authorization())
                .contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token")
                .isEqualTo(sdkAuthorization("s3.amazonaws.com", path, AT, "token/+="));
    }

    @Test
    void theSigningKeyIsAwssPublishedExample() {
        // "Examples of how to derive a signing key for Signature Version 4" (AWS General
        // Reference): this secret, 20120215, us-east-1, iam.
        byte[] key = S3GetSigner.signingKey(SECRET, "20120215", "us-east-1", "iam");
        assertThat(HexFormat.of().formatHex(key))
                .isEqualTo("f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
    }

    @Test
    void theCachesChangeNoSignature() throws Exception {
        S3GetSigner used = new S3GetSigner("us-east-1");
        Instant nextDay = AT.plusSeconds(86_400 + 1);
        // Other days, another secret, the same second twice, other threads: then the inputs.
        used.sign("h", "/b/k", ACCESS, "other-secret", null, nextDay);
        used.sign("h", "/b/k", ACCESS, SECRET, null, nextDay);
        used.sign("h", "/b/k", ACCESS, SECRET, null, nextDay);
        Thread other = new Thread(() -> used.sign("h", "/b/k", ACCESS, SECRET, null, AT));
        other.start();
        other.join();
        for (Instant at : new Instant[] {AT, nextDay, AT.plusMillis(999), AT}) {
            S3GetSigner.Signed cached = used.sign("host:9000", "/b/a.bin", ACCESS, SECRET, "t", at);
            S3GetSigner.Signed fresh =
                    new S3GetSigner("us-east-1")
                            .sign("host:9000", "/b/a.bin", ACCESS, SECRET, "t", at);
            assertThat(cached).as("at %s", at).isEqualTo(fresh);
        }
        assertThat(used.sign("h", "/b/k", ACCESS, SECRET, null, AT.plusMillis(999)).amzDate())
                .as("the same second: the same date")
                .isEqualTo("20130524T000000Z");
    }
}
