// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// Forwarder: passes the ether it is sent on to another address by an internal call, the way contract
// wallets (multisigs, smart accounts, exchanges' batch payouts) pay, FOR LOCAL CHAINS AND TESTS ONLY. The
// API suite uses it to check that ether arriving by an internal call is credited, and that ether sent by a
// call that was later undone is not.
//
// Build: `npm run contracts:compile` writes lib/chain/contracts/forwarder.json and lib/chain/forwarder-abi.ts.

contract Forwarder {
    /// Sends all the ether received to `to`.
    function forward(address payable to) external payable {
        (bool sent, ) = to.call{value: msg.value}("");
        require(sent, "forward failed");
    }

    /// Sends all the ether received to `to`, then reverts: the transfer is undone with it.
    function sendThenRevert(address payable to) external payable {
        (bool sent, ) = to.call{value: msg.value}("");
        require(sent, "forward failed");
        revert("undone");
    }

    /// Calls sendThenRevert and swallows its revert: this transaction succeeds, `to` receives nothing,
    /// and the call trace still shows a value transfer to `to` inside a reverted frame.
    function forwardUndone(address payable to) external payable {
        try this.sendThenRevert{value: msg.value}(to) {} catch {}
    }
}
