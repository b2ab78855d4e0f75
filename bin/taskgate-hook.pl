#!/usr/bin/env perl
# taskgate's hook for a coding agent's harness, the fast way: perl starts in a few milliseconds, asks
# the repository's helper (`taskgate agent serve`, on the unix socket in git's folder) and prints its
# answer. When no helper answers, it hands the same input to `<command> agent hook <harness>`, which
# judges the edit itself and starts a helper for the next one. Either way the output and exit code are
# exactly those of `taskgate agent hook <harness>`.
#
#   perl taskgate-hook.pl <harness> <command>
#
# <command> is how the shell runs taskgate (for example `node /path/to/taskgate.js`). Uses only perl's
# core modules (IO::Socket::UNIX, Cwd).
use strict;
use warnings;
use Cwd ();
use IO::Socket::UNIX;

my ($harness, $command) = @ARGV;
exit 2 unless defined $harness && defined $command && $harness =~ /^[a-z-]+$/;
binmode STDIN;
binmode STDOUT;
binmode STDERR;
my $input = do { local $/; <STDIN> };
$input = "" unless defined $input;

# The environment an answer depends on (as `agent hook` passes it to the helper).
my @names = qw(TASKGATE_LOGIN TASKGATE_AGENT TASKGATE_TASK CLAUDE_PROJECT_DIR TASKGATE_DEBUG);

sub json_string {
    my ($text) = @_;
    $text =~ s/(["\\])/\\$1/g;
    $text =~ s/([\x00-\x1f\x7f])/sprintf("\\u%04x", ord($1))/ge;
    return "\"$text\"";
}

# The helper's socket: `<git dir>/taskgate/agent.sock` above the project, found without running git.
sub socket_path {
    my ($dir) = @_;
    $dir = Cwd::abs_path($dir);
    while (defined $dir && $dir ne "") {
        my $dot = "$dir/.git";
        if (-d $dot) {
            return "$dot/taskgate/agent.sock";
        }
        if (-f $dot) {
            open(my $fh, "<", $dot) or return undef;
            my $text = do { local $/; <$fh> };
            close $fh;
            return undef unless defined $text && $text =~ /^gitdir:\s*(.+?)\s*$/m;
            my $git = $1;
            $git = "$dir/$git" unless $git =~ m{^/};
            return "$git/taskgate/agent.sock";
        }
        last if $dir eq "/";
        $dir =~ s{/[^/]*$}{};
        $dir = "/" if $dir eq "";
    }
    return undef;
}

# One question to the helper: the answer as (code, stdout, stderr), or nothing when none answers.
sub ask_helper {
    my $project = $ENV{CLAUDE_PROJECT_DIR};
    $project = Cwd::getcwd() unless defined $project && $project ne "";
    my $socket_path = socket_path($project);
    return () unless defined $socket_path && -S $socket_path && length($socket_path) <= 100;
    my $socket = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $socket_path) or return ();
    binmode $socket;
    my @env = map { json_string($_) . ":" . json_string($ENV{$_}) } grep { defined $ENV{$_} } @names;
    my $request = "{\"harness\":" . json_string($harness)
      . ",\"input\":" . json_string($input)
      . ",\"cwd\":" . json_string(Cwd::getcwd())
      . ",\"env\":{" . join(",", @env) . "}"
      . ",\"reply\":\"sized\"}\n";
    print $socket $request;
    $socket->flush();
    # "<code> <stdout bytes> <stderr bytes>\n", then the bytes of each.
    my $header = <$socket>;
    return () unless defined $header && $header =~ /^(\d+) (\d+) (\d+)\n$/;
    my ($code, $out_size, $err_size) = ($1, $2, $3);
    my $body = "";
    while (length($body) < $out_size + $err_size) {
        my $read = read($socket, $body, $out_size + $err_size - length($body), length($body));
        return () unless $read;
    }
    close $socket;
    return ($code, substr($body, 0, $out_size), substr($body, $out_size, $err_size));
}

if (($ENV{TASKGATE_AGENT_HELPER} // "") ne "0") {
    my @answer = ask_helper();
    if (@answer) {
        print STDOUT $answer[1];
        print STDERR $answer[2];
        exit $answer[0];
    }
}

# No helper: taskgate judges the edit itself (and starts a helper for the next one).
open(my $pipe, "|-", "/bin/sh", "-c", "$command agent hook $harness") or exit 2;
binmode $pipe;
print $pipe $input;
close $pipe;
exit(($? & 127) ? 2 : ($? >> 8));
