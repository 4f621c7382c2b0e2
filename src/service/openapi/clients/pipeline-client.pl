#!/usr/bin/perl
# A client of this server in another language, generated from its /openapi.json at run time
# by OpenAPI::Client (Debian: libopenapi-client-perl): each operationId becomes a method.
# Usage: pipeline-client.pl <base url> <api key> <pipeline id> <file name>
# Prints one line per call: "<operationId> <HTTP status> <what it read>".
use strict;
use warnings;
use OpenAPI::Client;
use Mojo::JSON qw(decode_json);

my ($base, $key, $pipeline, $file) = @ARGV;
my $client = OpenAPI::Client->new("$base/openapi.json", base_url => $base);
# The document's apiKey scheme: the key goes in the X-Pipelinewebapi header of every call.
$client->ua->on(start => sub { $_[1]->req->headers->header('X-Pipelinewebapi' => $key) });

my $tx = $client->version({ format => 'json' });
print 'version ', $tx->res->code, ' ', decode_json($tx->res->body)->{Response}{Version} // '', "\n";

$tx = $client->list({ format => 'json' });
my $pipelines = decode_json($tx->res->body)->{PipelineList}{PipeLine} // [];
print 'list ', $tx->res->code, ' ', join(',', map { $_->{Id} } @$pipelines), "\n";

# A form body, as the document's requestBody says (OpenAPI::Client's `form` generator).
$tx = $client->exec({ format => 'json' }, form => { pipelineid => $pipeline, filename => $file });
my $started = decode_json($tx->res->body)->{ExecuteResponse} // {};
print 'exec ', $tx->res->code, ' ', $started->{RequestId} // '', "\n";

$tx = $client->requestdetail({ format => 'json', requestid => $started->{RequestId} // '' });
print 'requestdetail ', $tx->res->code, ' ', decode_json($tx->res->body)->{RequestDetail}{RequestId} // '', "\n";

# A well-formed id the service does not know: its refusal comes back as it wrote it.
$tx = $client->requestdetail({ format => 'json', requestid => 'pl_1-20000101_00-000001' });
print 'refused ', $tx->res->code, ' ', decode_json($tx->res->body)->{ExecuteResponse}{Code} // '', "\n";
