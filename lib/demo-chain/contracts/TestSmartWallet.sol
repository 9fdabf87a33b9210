// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// TestSmartWallet: a minimal ERC-1271 contract wallet, FOR LOCAL CHAINS AND TESTS ONLY. It accepts a
// signature when its owner's key signed the hash with plain ECDSA, as the simplest real smart wallets do.
//
// Given more than `burnGasAbove` gas, `isValidSignature` instead loops until its gas runs out, the way a
// hostile payer's contract makes a verifier's node work for nothing:
//   - 0: every check burns all the gas it is given (a node without a gas cap runs it to the node's limit);
//   - type(uint256).max: an honest wallet that never burns;
//   - anything between: honest under a small gas cap, ruinous without one.
//
// Build: `npm run contracts:compile` writes lib/chain/contracts/test-smart-wallet.json and
// lib/chain/test-smart-wallet-abi.ts.
contract TestSmartWallet {
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;
    bytes4 private constant ERC1271_INVALID = 0xffffffff;

    address public immutable owner;
    uint256 public immutable burnGasAbove;

    constructor(address walletOwner, uint256 burnGasAboveLimit) {
        require(walletOwner != address(0), "owner is the zero address");
        owner = walletOwner;
        burnGasAbove = burnGasAboveLimit;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (gasleft() > burnGasAbove) {
            // Runs until out of gas: the call reverts having used everything it was given.
            while (true) {}
        }
        if (signature.length != 65) return ERC1271_INVALID;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(hash, v, r, s) == owner ? ERC1271_MAGIC_VALUE : ERC1271_INVALID;
    }
}
